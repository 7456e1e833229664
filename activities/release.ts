import type { HelmChart } from '../src/api/index.js';
import { chartSettingsOf } from '../src/build/settings.js';
import { latestRelease } from '../src/kube/helm-releases.js';
import { sameRelease, summarize, type ReleaseSummary } from '../src/release/summary.js';
import { readChart } from './charts.js';
import type { ActivityDeps } from './deps.js';
import { setStatus } from './status.js';
import type { ChartTarget, ReleaseObservation } from './types.js';

/**
 * The chart's helm release as status.release says it: its newest stored revision, in the target namespace,
 * through the chart's storage driver; null when none is stored (never installed, or uninstalled by hand).
 */
export async function releaseOf(deps: ActivityDeps, chart: HelmChart): Promise<ReleaseSummary | null> {
  const { release, targetNamespace, driver } = chartSettingsOf(chart);
  const record = await latestRelease(deps.core, targetNamespace, release, driver);
  return record === undefined ? null : summarize(record);
}

/**
 * Reads the chart's helm release and writes it to status.release when the status says something else (the
 * controller saw the stored release move). Idempotent; the result names the revision and status only, never
 * values. The release after an install is written by the install's own success report (reportInstalled).
 */
export async function recordRelease(deps: ActivityDeps, target: ChartTarget): Promise<ReleaseObservation> {
  const chart = await readChart(deps, target);
  if (chart === undefined) return { state: 'absent' };
  const summary = await releaseOf(deps, chart);
  if (summary === null) {
    // Uninstalled behind helmflow's back: the status must stop naming a release that is not there.
    if (chart.status?.release !== undefined) await setStatus(deps, target, { conditions: [], release: null }, chart);
    return { state: 'absent' };
  }
  if (!sameRelease(chart.status?.release, summary)) {
    await setStatus(deps, target, { conditions: [], release: summary }, chart);
  }
  return { state: 'present', revision: summary.revision, status: summary.status };
}
