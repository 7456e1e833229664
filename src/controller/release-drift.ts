import type { HelmChartStatus } from '../api/index.js';

/** The newest stored revision of a release, from its record's labels. */
export interface StoredRelease {
  revision: number;
  status: string;
}

/**
 * Whether the stored release moved away from what the chart's status says (a new revision, a new status, or
 * gone), so the chart's workflow should read it again. Pure: the controller checks it on resync and signals
 * only on a change, so an idle chart writes no history. While the chart installs or uninstalls its release is
 * expected to move, and the install's own success report carries it: no signal then.
 */
export function releaseMoved(
  held: HelmChartStatus['release'],
  stored: StoredRelease | undefined,
  phase?: HelmChartStatus['phase'],
): boolean {
  if (phase === 'Installing' || phase === 'Deleting') return false;
  if (stored === undefined) return held?.revision !== undefined;
  return held?.revision !== stored.revision || held.status !== stored.status;
}
