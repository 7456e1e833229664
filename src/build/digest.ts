import { createHmac } from 'node:crypto';
import {
  DEFAULT_DRIVER,
  DEFAULT_FAILURE_POLICY,
  readsSecret,
  type ApiGroup,
  type HelmChart,
  type HelmChartConfig,
  type SecretData,
  type ValuesSecret,
} from '../api/index.js';
import { canonicalJson } from './canonical-json.js';
import { resolveOptions, type BuildOptions } from './options.js';
import { DEFAULT_WAIT, PREFLIGHT_SKIP, skipsPreflight, waitAnnotationKey } from './labels.js';
import { jobImage } from './pod.js';

/**
 * The digest of a chart's desired state: it changes when, and only when, something that must rerun the install
 * changes. That is
 * - the HelmChart spec (seed: "the Job is replaced when the HelmChart spec ... changes"), with k3s's omitempty
 *   reading: an unset field, an empty one and its default are the same;
 * - the whole HelmChartConfig spec. The seed names valuesContent, failurePolicy and forceConflicts; values and
 *   valuesSecrets are the same overlay as valuesContent, and serverSide changes the helm command line, so each
 *   of them must rerun the install as well. Its metadata does not count;
 * - the data of the keys read from values Secrets, except Secrets marked ignoreUpdates (k3s semantics: their
 *   changes do not trigger an upgrade). Keys a chart does not read do not count;
 * - the job image, when it comes from the operator's default rather than the spec;
 * - the annotation `<group>/preflight: skip` (labels.ts): it removes the Job's pre-flight, and a chart that fails
 *   pre-flight needs a new Job for the annotation to help. It counts only when set, so the digest of every chart
 *   without it is what it was before the annotation existed (no reinstall on upgrading helmflow);
 * - the annotation `<group>/wait` (labels.ts): `legacy` changes the install Job's helm command line, and a value
 *   that is refused must change the digest when it is mended, or the mended chart would look unchanged. It counts
 *   unless it is `watcher` (helm's default, the Job without it), for the same reason as pre-flight's;
 * Names, labels, other annotations and the generation do not count: they do not change what helm does. (The
 * `<group>/crds` annotation does not count either: the worker reads it from the chart when the Job prints its CRDs,
 * and it changes nothing in the Job.)
 * It is an HMAC under the cluster's digest key: the digest is shown in status, Job annotations and workflow
 * history, and unkeyed it would let a reader confirm a guessed values Secret offline.
 */
export function desiredDigest(
  chart: HelmChart,
  config: HelmChartConfig | undefined,
  secrets: SecretData,
  options: BuildOptions = {},
): string {
  const resolved = resolveOptions(options);
  const state = {
    v: 2,
    spec: chartSpecState(chart),
    config: config === undefined ? null : configSpecState(config),
    secrets: secretState(chart, config, secrets),
    jobImage: jobImage(chart, resolved),
    ...(skipsPreflight(chart.metadata.annotations, resolved.group) ? { preflight: PREFLIGHT_SKIP } : {}),
    ...waitState(chart, resolved.group),
  };
  return createHmac('sha256', resolved.digestKey).update(canonicalJson(state)).digest('hex');
}

/** The wait annotation as the digest counts it: absent when helm's default is meant. */
function waitState(chart: HelmChart, group: ApiGroup): { wait?: string } {
  const wait = chart.metadata.annotations?.[waitAnnotationKey(group)];
  return wait === undefined || wait === DEFAULT_WAIT ? {} : { wait };
}

/** unset, null, '', false, [] and {} all mean "not set" to k3s's Go types (omitempty). */
function isUnset(value: unknown): boolean {
  if (value === undefined || value === null || value === '' || value === false) return true;
  if (Array.isArray(value)) return value.length === 0;
  return typeof value === 'object' && Object.keys(value).length === 0;
}

function withoutUnset(record: Readonly<Record<string, unknown>>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(record).filter(([, v]) => !isUnset(v)));
}

function valuesSecretsState(list: readonly ValuesSecret[] | undefined): unknown {
  return (list ?? []).map((entry) => withoutUnset(entry));
}

function chartSpecState(chart: HelmChart): unknown {
  const spec = chart.spec;
  return withoutUnset({
    ...spec,
    failurePolicy: spec.failurePolicy ?? DEFAULT_FAILURE_POLICY,
    driver: spec.driver ?? DEFAULT_DRIVER,
    valuesSecrets: valuesSecretsState(spec.valuesSecrets),
  });
}

/** A HelmChartConfig that sets nothing changes nothing helm does, so it reads as no HelmChartConfig (null). */
function configSpecState(config: HelmChartConfig): unknown {
  const spec = config.spec ?? {};
  const { forceConflicts, ...rest } = spec;
  // An explicit forceConflicts: false overrides the HelmChart's true, so false is kept here.
  const state = {
    ...withoutUnset({ ...rest, valuesSecrets: valuesSecretsState(spec.valuesSecrets) }),
    ...(forceConflicts === undefined ? {} : { forceConflicts }),
  };
  return Object.keys(state).length === 0 ? null : state;
}

function secretState(chart: HelmChart, config: HelmChartConfig | undefined, secrets: SecretData): unknown[] {
  const lists: [string, readonly ValuesSecret[]][] = [
    ['HelmChart', chart.spec.valuesSecrets ?? []],
    ['HelmChartConfig', config?.spec?.valuesSecrets ?? []],
  ];
  const out: unknown[] = [];
  for (const [owner, list] of lists) {
    for (const entry of list) {
      if (!readsSecret(chart.metadata.name, entry) || entry.ignoreUpdates === true) continue;
      const data = secrets[entry.name];
      const keys = Object.fromEntries((entry.keys ?? []).map((key) => [key, data?.[key] ?? null]));
      out.push({ owner, name: entry.name, exists: data !== undefined, keys });
    }
  }
  return out;
}
