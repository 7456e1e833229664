import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { parseAllDocuments, stringify } from 'yaml';
import { toolPaths } from '../../../src/config/pins.js';
import { clients } from './kube.js';

/**
 * Real Helm charts built by the tests, packaged with the pinned helm: nothing is downloaded.
 *
 * Every chart renders one ConfigMap, `<release>-values` in the release namespace, whose `values.json` key holds
 * the chart's final values as JSON. A test reads the values helm computed either from the cluster
 * (`releaseValues`) after an install, or from the output of `helm template` (`valuesInManifest`).
 *
 * Every chart also fails at render time when its `fail` value is set, with that value as the message, so the same
 * chart installs or fails depending on its values:
 *
 *   const chart = buildChart({ name: 'demo', values: { greeting: 'hi' } });
 *   spec.chartContent = chart.chartContent;          // installs
 *   spec.set = { fail: 'broken on purpose' };        // `helm` exits 1: "broken on purpose"
 *
 * With `crd: true` the chart also carries a CRD in `crds/` (installed by helm before the templates, outside the
 * release) and a template creating one object of that kind named after the release.
 */

export interface TestChartOptions {
  /** Chart name (a DNS label); default `helmflow-test`. Also names the CRD's group when `crd` is set. */
  name?: string;
  /** Chart version; default `0.1.0`. */
  version?: string;
  /** The chart's appVersion; none by default. */
  appVersion?: string;
  /** The chart's own values.yaml (the lowest precedence). */
  values?: Record<string, unknown>;
  /** Adds `crds/` with a CRD, and a template creating an object of that kind. */
  crd?: boolean;
  /** With `crd`: more string fields in the CRD's `spec` schema, each set to this value on the chart's object. */
  widgetFields?: Record<string, string>;
  /** Extra files under `templates/`, file name → text. */
  templates?: Record<string, string>;
}

export interface TestChart {
  name: string;
  version: string;
  /** The packaged chart on disk (`<name>-<version>.tgz`). */
  path: string;
  /** The archive's bytes. */
  archive: Buffer;
  /** Base64 of the archive: ready for `spec.chartContent`. */
  chartContent: string;
  /** With `crd: true`: what the chart's CRD defines. */
  crd?: { name: string; group: string; kind: string; plural: string };
}

/** The key of the rendered ConfigMap that holds the values as JSON. */
export const VALUES_KEY = 'values.json';

/** The name of the ConfigMap every test chart renders for a release. */
export function valuesConfigMapName(release: string): string {
  return `${release}-values`;
}

const VALUES_TEMPLATE = `apiVersion: v1
kind: ConfigMap
metadata:
  name: {{ .Release.Name }}-values
  namespace: {{ .Release.Namespace }}
  labels:
    helmflow.test/chart: {{ .Chart.Name }}
data:
  ${VALUES_KEY}: {{ toJson .Values | quote }}
  chart: {{ printf "%s-%s" .Chart.Name .Chart.Version | quote }}
  revision: {{ .Release.Revision | quote }}
`;

const FAIL_TEMPLATE = `{{- if .Values.fail }}
{{- fail (printf "%v" .Values.fail) }}
{{- end }}
`;

function crdOf(name: string) {
  const group = `${name}.charts.helmflow.test`;
  return { name: `widgets.${group}`, group, kind: 'Widget', plural: 'widgets' };
}

function crdManifest(crd: NonNullable<TestChart['crd']>, fields: Record<string, string>): string {
  const extra = Object.fromEntries(Object.keys(fields).map((field) => [field, { type: 'string' }]));
  return stringify({
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: crd.name },
    spec: {
      group: crd.group,
      names: { kind: crd.kind, plural: crd.plural, singular: 'widget', listKind: `${crd.kind}List` },
      scope: 'Namespaced',
      versions: [
        {
          name: 'v1',
          served: true,
          storage: true,
          schema: {
            openAPIV3Schema: {
              type: 'object',
              properties: { spec: { type: 'object', properties: { size: { type: 'string' }, ...extra } } },
            },
          },
        },
      ],
    },
  });
}

function widgetTemplate(crd: NonNullable<TestChart['crd']>, fields: Record<string, string>): string {
  const extra = Object.entries(fields).map(([field, value]) => `  ${field}: ${JSON.stringify(value)}\n`);
  return `apiVersion: ${crd.group}/v1
kind: ${crd.kind}
metadata:
  name: {{ .Release.Name }}
  namespace: {{ .Release.Namespace }}
spec:
  size: {{ .Values.widgetSize | default "small" | quote }}
${extra.join('')}`;
}

/** Writes the chart's sources in a temporary directory and packages them with the pinned helm. */
export function buildChart(options: TestChartOptions = {}): TestChart {
  const name = options.name ?? 'helmflow-test';
  const version = options.version ?? '0.1.0';
  const work = mkdtempSync(path.join(tmpdir(), 'helmflow-chart-'));
  const source = path.join(work, name);
  mkdirSync(path.join(source, 'templates'), { recursive: true });
  writeFileSync(
    path.join(source, 'Chart.yaml'),
    stringify({
      apiVersion: 'v2',
      name,
      version,
      ...(options.appVersion === undefined ? {} : { appVersion: options.appVersion }),
      description: 'A chart built by a helmflow test',
    }),
  );
  writeFileSync(path.join(source, 'values.yaml'), stringify(options.values ?? {}));
  writeFileSync(path.join(source, 'templates', 'values-configmap.yaml'), VALUES_TEMPLATE);
  writeFileSync(path.join(source, 'templates', 'fail.yaml'), FAIL_TEMPLATE);
  const crd = options.crd === true ? crdOf(name) : undefined;
  if (crd !== undefined) {
    mkdirSync(path.join(source, 'crds'));
    const fields = options.widgetFields ?? {};
    writeFileSync(path.join(source, 'crds', `${crd.plural}.yaml`), crdManifest(crd, fields));
    writeFileSync(path.join(source, 'templates', 'widget.yaml'), widgetTemplate(crd, fields));
  }
  for (const [file, text] of Object.entries(options.templates ?? {})) {
    writeFileSync(path.join(source, 'templates', file), text);
  }
  const out = path.join(work, 'out');
  // helm's own state stays in the temporary directory: a test never reads or writes the user's helm config.
  const helmHome = path.join(work, '.helm');
  execFileSync(toolPaths().helm, ['package', source, '--destination', out], {
    encoding: 'utf8',
    env: {
      ...process.env,
      HELM_CACHE_HOME: path.join(helmHome, 'cache'),
      HELM_CONFIG_HOME: path.join(helmHome, 'config'),
      HELM_DATA_HOME: path.join(helmHome, 'data'),
    },
  });
  const archivePath = path.join(out, `${name}-${version}.tgz`);
  const archive = readFileSync(archivePath);
  return {
    name,
    version,
    path: archivePath,
    archive,
    chartContent: archive.toString('base64'),
    ...(crd === undefined ? {} : { crd }),
  };
}

/**
 * The values a test chart rendered, found in a manifest stream (the output of `helm template`, which may carry
 * helm's warnings around it). `release` picks the ConfigMap of that release; undefined when none is there.
 */
export function valuesInManifest(manifest: string, release: string): Record<string, unknown> | undefined {
  const wanted = valuesConfigMapName(release);
  for (const doc of parseAllDocuments(manifest)) {
    if (!('errors' in doc) || doc.errors.length > 0) continue;
    const object = doc.toJS() as unknown;
    if (typeof object !== 'object' || object === null) continue;
    const cm = object as { kind?: string; metadata?: { name?: string }; data?: Record<string, string> };
    const json = cm.data?.[VALUES_KEY];
    if (cm.kind === 'ConfigMap' && cm.metadata?.name === wanted && json !== undefined) {
      return JSON.parse(json) as Record<string, unknown>;
    }
  }
  return undefined;
}

/** The values an installed release of a test chart rendered, read from the cluster; undefined while it is absent. */
export async function releaseValues(namespace: string, release: string): Promise<Record<string, unknown> | undefined> {
  try {
    const cm = await clients().core.readNamespacedConfigMap({ name: valuesConfigMapName(release), namespace });
    const json = cm.data?.[VALUES_KEY];
    return json === undefined ? undefined : (JSON.parse(json) as Record<string, unknown>);
  } catch (err) {
    if ((err as { code?: number }).code === 404) return undefined;
    throw err;
  }
}
