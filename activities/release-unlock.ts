import { chartSettingsOf } from '../src/build/settings.js';
import { unlockPendingRelease } from '../src/kube/helm-releases.js';
import { readChart } from './charts.js';
import type { ActivityDeps } from './deps.js';
import { recordEvent } from './events.js';
import { podsOfJob } from './failed-pods.js';
import type { ChartTarget } from './types.js';
import { ChartEventReason } from '../src/api/event-reasons.js';

/**
 * A pod of the install Job was refused because the release is pending: the helm that left it so is gone when no
 * pod of the Job (of any uid: a replaced Job's pods are gone before its successor is created) is running, since
 * only helmflow's Job runs helm for this chart. Then the release is marked failed, with a Warning Event, and the
 * Job's next pod runs. A pod still running may hold the lock itself: nothing is done, and its failure asks again.
 */
export async function unlockAbandonedRelease(deps: ActivityDeps, target: ChartTarget, jobName: string): Promise<void> {
  const { namespace } = target.ref;
  const pods = await podsOfJob(deps, namespace, jobName);
  if (pods.some((pod) => pod.status?.phase === 'Running')) return;
  const chart = await readChart(deps, target);
  if (chart === undefined) return;
  const { release, targetNamespace, driver } = chartSettingsOf(chart);
  const unlocked = await unlockPendingRelease(deps.core, targetNamespace, release, driver, jobName);
  if (unlocked === undefined) return;
  await recordEvent(deps, target, {
    type: 'Warning',
    reason: ChartEventReason.ReleaseUnlocked,
    message: `release ${release} (revision ${unlocked.revision}) was ${unlocked.was}, left so by a helm that no longer runs (no pod of ${jobName} is running); marked failed so that the Job's next pod can run helm`,
  });
}
