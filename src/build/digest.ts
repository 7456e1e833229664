import { createHmac } from 'node:crypto';
import {
  DEFAULT_DRIVER,
  DEFAULT_FAILURE_POLICY,
  readsSecret,
  type HelmChart,
  type HelmChartConfig,
  type SecretData,
  type ValuesSecret,
} from '../api/index.js';
import { canonicalJson } from './canonical-json.js';
import { resolveOptions, type BuildOptions } from './options.js';
import { choiceDigestState } from './choice-annotations.js';
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
 * - the annotations `<group>/preflight: skip` and `<group>/wait: legacy` (labels.ts), which change the install Job
 *   (a chart that fails pre-flight needs a new Job for `skip` to help), and any value of those and of
 *   `<group>/crds` that is refused, since mending it must be a change or the mended chart would look unchanged
 *   (choice-annotations.ts). Their other values build the Jobs of no annotation and do not count, so the digest of
 *   a chart without them is what it was before they existed (no reinstall on upgrading helmflow);
 * Names, labels, other annotations and the generation do not count: they do not change what helm does. (`<group>/crds:
 * apply` does not count either: the worker reads it from the chart when a Job prints its CRDs, and it changes
 * nothing in the Job.)
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
    ...choiceDigestState(chart, resolved.group),
  };
  return createHmac('sha256', resolved.digestKey).update(canonicalJson(state)).digest('hex');
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
