import { UNINSTALL_FINALIZER, type ApiGroup, type HelmChart } from '../api/index.js';
import { ignoreReason } from './desired-state.js';
import type { Urgency } from './pending-keys.js';

/**
 * How urgent a chart of the controller's initial list is. The list is the controller catching up after a start
 * (a restart, a new leader), and most of it is charts served before, so it waits behind changes. But a chart
 * applied or edited while no controller was serving (or just before this one listed) is someone's change: left
 * in the catch-up, it would wait behind every other chart's resync, in silence. Pure: table-tested in
 * test/unit/catch-up.test.ts.
 */
export function catchUpUrgency(chart: HelmChart | undefined, group: ApiGroup): Urgency {
  // Left alone (unmanaged, or deleted and not ours): nothing to do, so nothing to hurry.
  if (chart === undefined || ignoreReason(chart, group) !== undefined) return 'resync';
  const { finalizers = [], deletionTimestamp, generation } = chart.metadata;
  // Never taken in: no finalizer yet.
  if (!finalizers.includes(UNINSTALL_FINALIZER)) return 'change';
  // Deleted, or its spec changed, since helmflow last wrote its status.
  if (deletionTimestamp !== undefined) return 'change';
  return chart.status?.observedGeneration === generation ? 'resync' : 'change';
}
