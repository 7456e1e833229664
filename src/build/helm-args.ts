import { setEntries } from './set-args.js';
import type { ChartSettings } from './settings.js';
import type { ChartSource } from './source.js';
import type { ValuesFile } from './values-files.js';
import { DEFAULT_WAIT, type WaitStrategy } from './labels.js';

/** helm 4's `--wait` alone means its watcher, the Job's flag since before the annotation; any other is named. */
export function waitArg(wait: WaitStrategy): string {
  return wait === DEFAULT_WAIT ? '--wait' : `--wait=${wait}`;
}

/**
 * `helm upgrade --install` as the README's "Using it" spells it. Every path is relative to the container's working
 * directory, so the native node can run the same arguments with the volumes materialised in its sandbox. Values
 * appear as file paths, never as text, except the integers, booleans and nulls of spec.set (see set-args.ts).
 */
export function installArgs(
  settings: ChartSettings,
  source: ChartSource,
  files: readonly ValuesFile[],
  set: Readonly<Record<string, number | string>> | undefined,
  wait: WaitStrategy = DEFAULT_WAIT,
): string[] {
  const args = ['upgrade', '--install', settings.release, source.ref, '--namespace', settings.targetNamespace];
  if (settings.createNamespace) args.push('--create-namespace');
  if (source.kind === 'repo') args.push('--repo', source.repo);
  if ((source.kind === 'repo' || source.kind === 'oci') && source.version !== undefined) {
    args.push('--version', source.version);
  }
  args.push(waitArg(wait), '--timeout', settings.timeout);
  if (settings.takeOwnership) args.push('--take-ownership');
  if (settings.serverSide !== undefined) args.push(`--server-side=${settings.serverSide}`);
  // Forcing conflicts only means something with server-side apply; klipper-helm drops it for "false" too.
  if (settings.forceConflicts && settings.serverSide !== 'false') args.push('--force-conflicts');
  return [...args, ...valuesArgs(files, set)];
}

/** Where pre-flight writes what it rendered, relative to the working directory: files, never the log. */
export const PREFLIGHT_OUTPUT_DIR = 'tmp/preflight';

/**
 * Pre-flight: `helm template` of the same chart, version and values with `--dry-run=server`, so helm fetches the
 * chart and renders it against the live cluster (its `.Capabilities` and `lookup`) and changes nothing. The
 * rendered objects go to files under PREFLIGHT_OUTPUT_DIR, so values that end up in a manifest never reach the
 * pod's log; only helm's error does. The price: helm 4.3 then hands its object checks (kind mapping, ownership) an
 * empty manifest, so those failures show only at helm upgrade.
 */
export function preflightArgs(
  settings: ChartSettings,
  source: ChartSource,
  files: readonly ValuesFile[],
  set: Readonly<Record<string, number | string>> | undefined,
): string[] {
  const args = ['template', settings.release, source.ref, '--namespace', settings.targetNamespace];
  if (source.kind === 'repo') args.push('--repo', source.repo);
  if ((source.kind === 'repo' || source.kind === 'oci') && source.version !== undefined) {
    args.push('--version', source.version);
  }
  args.push('--dry-run=server', '--output-dir', PREFLIGHT_OUTPUT_DIR);
  if (settings.takeOwnership) args.push('--take-ownership');
  return [...args, ...valuesArgs(files, set)];
}

/**
 * `helm show crds` of the same chart and version: the chart's `crds/` as helm reads them, printed to the log (they
 * are static chart files, never values), so the worker can compare them with the cluster's CRDs.
 */
export function chartCrdsArgs(source: ChartSource): string[] {
  const args = ['show', 'crds', source.ref];
  if (source.kind === 'repo') args.push('--repo', source.repo);
  if ((source.kind === 'repo' || source.kind === 'oci') && source.version !== undefined) {
    args.push('--version', source.version);
  }
  return args;
}

function valuesArgs(
  files: readonly ValuesFile[],
  set: Readonly<Record<string, number | string>> | undefined,
): string[] {
  return [...files.flatMap((file) => ['--values', file.path]), ...setEntries(set).args];
}

/** `helm uninstall`; --ignore-not-found so deleting a chart that never installed succeeds. */
export function uninstallArgs(settings: ChartSettings, wait: WaitStrategy = DEFAULT_WAIT): string[] {
  return [
    'uninstall',
    settings.release,
    '--namespace',
    settings.targetNamespace,
    '--ignore-not-found',
    waitArg(wait),
    '--timeout',
    settings.timeout,
  ];
}
