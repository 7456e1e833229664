import type { HelmChartStatus } from '../api/index.js';
import type { ReleaseRecord } from './record.js';
import { computedValues, valuesHash } from './values.js';

/** What the HelmChart's status says of its release: identity, revision, state, chart — values only as a hash. */
export type ReleaseSummary = Required<NonNullable<HelmChartStatus['release']>>;

export function summarize(record: ReleaseRecord): ReleaseSummary {
  const meta = record.chart?.metadata ?? {};
  return {
    name: record.name ?? '',
    namespace: record.namespace ?? '',
    revision: record.version ?? 0,
    status: record.info?.status ?? 'unknown',
    chart: meta.name ?? '',
    chartVersion: meta.version ?? '',
    appVersion: meta.appVersion ?? '',
    lastDeployed: record.info?.last_deployed ?? record.info?.first_deployed ?? '',
    valuesHash: valuesHash(computedValues(record.chart?.values, record.config)),
  };
}

/** Whether the status already says this of the release (so nothing needs writing). */
export function sameRelease(held: HelmChartStatus['release'], read: ReleaseSummary | undefined): boolean {
  if (read === undefined) return held === undefined;
  if (held === undefined) return false;
  return (Object.keys(read) as (keyof ReleaseSummary)[]).every((key) => held[key] === read[key]);
}
