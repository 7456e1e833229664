import type { HelmChart } from '../src/api/index.js';
import { settingsOf } from '../src/build/settings.js';
import { latestReleaseLabels, markNewestFailed } from '../src/kube/helm-releases.js';
import { needsUnlock } from '../src/release/unlock.js';
import type { ActivityDeps } from './deps.js';
import { recordEvent } from './events.js';
import type { ChartTarget } from './types.js';

/**
 * Called once no install Job of the chart exists (createInstallJob, before it creates this attempt's), with the
 * chart as the attempt read it (its target namespace, release name and driver): a release
 * left pending-install, pending-upgrade or pending-rollback by a helm that died is marked failed, so this
 * attempt's helm is not refused with "another operation is in progress", and a Warning Event says so.
 */
export async function unlockStuckRelease(deps: ActivityDeps, target: ChartTarget, chart: HelmChart): Promise<void> {
  const { targetNamespace, release, driver } = settingsOf(chart);
  const newest = await latestReleaseLabels(deps.core, targetNamespace, release, driver);
  if (!needsUnlock(newest?.status, false)) return;
  const why = `unlocked by helmflow: ${newest?.status ?? ''} with no helm Job of it running (its helm died)`;
  const marked = await markNewestFailed(deps.core, targetNamespace, release, driver, why);
  if (marked === undefined) return;
  deps.log.info({ chart: `${target.ref.namespace}/${target.ref.name}`, ...marked }, 'unlocked a stuck release');
  await recordEvent(deps, target, {
    type: 'Warning',
    reason: 'HelmReleaseUnlocked',
    message:
      `release ${release} in ${targetNamespace} was ${marked.was} at revision ${marked.revision} with no helm Job ` +
      'of it running (its helm died): marked failed so the next install can proceed',
  });
}
