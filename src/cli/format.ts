/**
 * How the operator commands print: tables, ages, one chart's row and its readable status. Pure: the commands
 * fetch, these format, and unit tests pin the text.
 */
import type { HelmChart } from '../api/index.js';
import type { ChartStatus } from '../../workflows/contract.js';

/** Kubernetes-style ages: 45s, 12m, 5h, 3d. */
export function formatAge(since: string | undefined, nowMs: number): string {
  if (since === undefined) return '<unknown>';
  const seconds = Math.max(0, Math.floor((nowMs - Date.parse(since)) / 1000));
  if (seconds < 120) return `${seconds}s`;
  if (seconds < 120 * 60) return `${Math.floor(seconds / 60)}m`;
  if (seconds < 48 * 3600) return `${Math.floor(seconds / 3600)}h`;
  return `${Math.floor(seconds / 86400)}d`;
}

/** Left-aligned columns separated by three spaces, as kubectl prints. */
export function table(header: string[], rows: string[][]): string {
  const all = [header, ...rows];
  const widths = header.map((_, i) => Math.max(...all.map((r) => (r[i] ?? '').length)));
  return all
    .map((r) =>
      r
        .map((cell, i) => (i === r.length - 1 ? cell : cell.padEnd(widths[i] ?? 0)))
        .join('   ')
        .trimEnd(),
    )
    .join('\n');
}

/** The Temporal UI page of one workflow. */
export function temporalUiLink(base: string, temporalNamespace: string, workflowId: string): string {
  return `${base.replace(/\/+$/u, '')}/namespaces/${encodeURIComponent(temporalNamespace)}/workflows/${encodeURIComponent(workflowId)}`;
}

/** What `helmflow get` shows of one chart (and prints whole with -o json|yaml). */
export interface ChartRow {
  namespace: string;
  name: string;
  phase: string;
  suspended: boolean;
  revision: number | undefined;
  releaseStatus: string | undefined;
  chartVersion: string | undefined;
  age: string;
  lastFailure: string | undefined;
  temporalUi: string;
}

/** The last failure the chart's status reports: Failed=True's reason and the first line of its message. */
export function lastFailureOf(chart: HelmChart): string | undefined {
  const failed = chart.status?.conditions?.find((c) => c.type === 'Failed' && c.status === 'True');
  if (failed === undefined) return undefined;
  const message = (failed.message ?? '').split('\n')[0] ?? '';
  return message === '' ? (failed.reason ?? 'Failed') : `${failed.reason ?? 'Failed'}: ${message}`;
}

export function chartRow(chart: HelmChart, nowMs: number, ui: string, suspended: boolean): ChartRow {
  const release = chart.status?.release;
  const creation = (chart.metadata as { creationTimestamp?: string }).creationTimestamp;
  return {
    namespace: chart.metadata.namespace,
    name: chart.metadata.name,
    phase: chart.status?.phase ?? 'Pending',
    suspended,
    revision: release?.revision,
    releaseStatus: release?.status,
    chartVersion: release?.chartVersion ?? chart.spec.version,
    age: formatAge(creation, nowMs),
    lastFailure: lastFailureOf(chart),
    temporalUi: ui,
  };
}

const FAILURE_WIDTH = 60;

export function chartTable(rows: ChartRow[], withNamespace: boolean): string {
  const header = [
    ...(withNamespace ? ['NAMESPACE'] : []),
    'NAME',
    'PHASE',
    'REVISION',
    'RELEASE',
    'CHART VERSION',
    'AGE',
    'LAST FAILURE',
    'TEMPORAL UI',
  ];
  const cut = (s: string) => (s.length > FAILURE_WIDTH ? `${s.slice(0, FAILURE_WIDTH - 1)}…` : s);
  return table(
    header,
    rows.map((r) => [
      ...(withNamespace ? [r.namespace] : []),
      r.name,
      r.suspended && r.phase !== 'Suspended' ? `${r.phase} (suspended)` : r.phase,
      r.revision === undefined ? '-' : String(r.revision),
      r.releaseStatus ?? '-',
      r.chartVersion ?? '-',
      r.age,
      r.lastFailure === undefined ? '-' : cut(r.lastFailure),
      r.temporalUi,
    ]),
  );
}

/** `helmflow chart status`: the workflow's view and the release, as lines a person reads. */
export function statusText(
  where: string,
  workflow: ChartStatus | undefined,
  chart: HelmChart | undefined,
  ui: string,
): string {
  const release = chart?.status?.release;
  const lines = [
    `HelmChart ${where}`,
    `  phase:        ${workflow?.phase ?? chart?.status?.phase ?? 'unknown'}`,
    `  attempt:      ${workflow?.attempt ?? '-'}`,
    `  job:          ${workflow?.jobName ?? chart?.status?.jobName ?? '-'}`,
    `  desired:      ${workflow?.desiredDigest ?? '-'}`,
    `  installed:    ${workflow?.installedDigest ?? '-'}`,
    `  last failure: ${workflow?.lastFailure?.reason ?? (chart === undefined ? '-' : (lastFailureOf(chart) ?? '-'))}`,
    `  release:      ${release === undefined ? 'none recorded' : releaseLine(release)}`,
    ...(release?.valuesHash === undefined ? [] : [`  values hash:  ${release.valuesHash}`]),
    `  Temporal UI:  ${ui}`,
  ];
  if (workflow === undefined) lines.splice(1, 0, '  (no workflow yet: the controller has not started one)');
  return lines.join('\n');
}

function releaseLine(release: NonNullable<NonNullable<HelmChart['status']>['release']>): string {
  const chart = [release.chart, release.chartVersion].filter((p) => p !== undefined && p !== '').join(' ');
  return [
    release.name,
    `revision ${release.revision ?? '?'}`,
    `${release.status ?? 'unknown'},`,
    `chart ${chart}${release.appVersion ? ` (app ${release.appVersion})` : ''},`,
    `deployed ${release.lastDeployed ?? '?'}`,
  ]
    .filter((p) => p !== undefined && p !== '')
    .join(' ');
}
