import { HELM_CONTAINER } from '../src/build/index.js';
import { compareChartCrds, printedLog } from './chart-crds.js';
import type { ActivityDeps } from './deps.js';
import { jobLooks, outcomeOf } from './jobs.js';
import type { ChartTarget, CrdsVerdict, JobOutcome, StartedJob } from './types.js';

/**
 * Waits for helm-crds-<name> to end (jobLooks: a cancelled attempt stops at once), then compares the chart's
 * crds/ it printed with the cluster's CRDs (compareChartCrds), before any install Job of this attempt exists. It
 * runs only before an upgrade, so a CRD the cluster lacks counts as behind.
 * A crds Job that failed or vanished printed nothing to compare: `unread`, and the install Job goes ahead, its own
 * pre-flight naming a chart that cannot be fetched and its `crds` step comparing beside the upgrade.
 */
export async function awaitChartCrds(deps: ActivityDeps, target: ChartTarget, job: StartedJob): Promise<CrdsVerdict> {
  const { namespace } = target.ref;
  let ended: JobOutcome | undefined;
  for await (const current of jobLooks(deps, namespace, job)) {
    ended = outcomeOf(current);
    if (ended !== undefined) break;
  }
  if (ended === undefined) return { state: 'unread', why: `${job.jobName} was deleted` };
  if (ended.outcome === 'failed') return { state: 'unread', why: `${job.jobName} failed (${ended.reason})` };
  const text = await printedLog(deps, namespace, job, HELM_CONTAINER);
  if (text === undefined) return { state: 'unread', why: `no pod of ${job.jobName} is left to read` };
  const { crds, behind } = await compareChartCrds(
    deps,
    target,
    { name: job.jobName, occurrence: job.jobUid },
    text,
    () => Promise.resolve(true),
  );
  return behind === undefined ? { state: 'current', crds } : { state: 'stale', crds, behind };
}
