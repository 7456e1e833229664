import type { HelmChartSpec } from '../api/index.js';

/** Where the chart archive is mounted in the Job, relative to its working directory. */
export const CHART_DIR = 'chart';
export const CHART_ARCHIVE_KEY = 'chart.tgz';
export const CHART_ARCHIVE_PATH = `${CHART_DIR}/${CHART_ARCHIVE_KEY}`;

/**
 * Where helm gets the chart. chartContent wins over chart, repo and version (k3s semantics); a chart URL
 * names one archive, so version means nothing there and is dropped.
 */
export type ChartSource =
  | { kind: 'content'; ref: string }
  | { kind: 'repo'; ref: string; repo: string; version?: string }
  | { kind: 'oci'; ref: string; version?: string }
  | { kind: 'url'; ref: string };

const nonEmpty = (value: string | undefined): value is string => value !== undefined && value !== '';

export function chartSource(spec: HelmChartSpec): ChartSource {
  const version = nonEmpty(spec.version) ? { version: spec.version } : {};
  if (nonEmpty(spec.chartContent)) return { kind: 'content', ref: CHART_ARCHIVE_PATH };
  const chart = spec.chart ?? '';
  if (nonEmpty(spec.repo)) return { kind: 'repo', ref: chart, repo: spec.repo, ...version };
  if (chart.toLowerCase().startsWith('oci://')) return { kind: 'oci', ref: chart, ...version };
  return { kind: 'url', ref: chart };
}

/** A Job fetches its chart over the network unless the archive travels in the HelmChart. */
export function fetchesChart(source: ChartSource): boolean {
  return source.kind !== 'content';
}
