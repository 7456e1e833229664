import { settingsOf } from '../src/build/settings.js';
import { latestRelease } from '../src/kube/helm-releases.js';
import { sameRelease, summarize } from '../src/release/summary.js';
import { readChart } from './charts.js';
import type { ActivityDeps } from './deps.js';
import { setStatus } from './status.js';
import type { ChartTarget, ReleaseObservation } from './types.js';

/**
 * Reads the chart's helm release (its newest stored revision, in the target namespace, through the chart's
 * storage driver) and writes it to status.release when the status says something else. Idempotent; the result
 * names the revision and status only, never values.
 */
export async function recordRelease(deps: ActivityDeps, target: ChartTarget): Promise<ReleaseObservation> {
  const chart = await readChart(deps, target);
  if (chart === undefined) return { state: 'absent' };
  const { release, targetNamespace, driver } = settingsOf(chart);
  const record = await latestRelease(deps.core, targetNamespace, release, driver);
  if (record === undefined) {
    // Uninstalled behind helmflow's back: the status must stop naming a release that is not there.
    if (chart.status?.release !== undefined) await setStatus(deps, target, { conditions: [], release: null });
    return { state: 'absent' };
  }
  const summary = summarize(record);
  if (!sameRelease(chart.status?.release, summary)) {
    await setStatus(deps, target, { conditions: [], release: summary });
  }
  return { state: 'present', revision: summary.revision, status: summary.status };
}
