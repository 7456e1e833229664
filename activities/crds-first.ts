import { Context } from '@temporalio/activity';
import type { V1Pod } from '@kubernetes/client-node';
import { HELM_CONTAINER } from '../src/build/index.js';
import { compareChartCrds } from './chart-crds.js';
import type { ActivityDeps } from './deps.js';
import { podsOfJob } from './failed-pods.js';
import { outcomeOf } from './jobs.js';
import type { ChartTarget, CrdsVerdict, StartedJob } from './types.js';

const pollMs = 1_000;

const printed = (pod: V1Pod) =>
  pod.status?.containerStatuses?.find((c) => c.name === HELM_CONTAINER)?.state?.terminated?.exitCode === 0;

/**
 * Waits for helm-crds-<name> to end (reading the shared Job watch each second, heartbeating, so a cancelled attempt
 * stops at once), then compares the chart's crds/ it printed with the cluster's CRDs (compareChartCrds), before any
 * install Job of this attempt exists. It runs only before an upgrade, so a CRD the cluster lacks counts as behind.
 * A crds Job that failed or vanished printed nothing to compare: `unread`, and the install Job goes ahead, its own
 * pre-flight naming a chart that cannot be fetched and its `crds` step comparing beside the upgrade.
 */
export async function awaitChartCrds(deps: ActivityDeps, target: ChartTarget, job: StartedJob): Promise<CrdsVerdict> {
  const context = Context.current();
  const { namespace } = target.ref;
  await deps.jobs.start();
  for (let reads = 0; ; reads += 1) {
    // Every 30th look goes to the apiserver itself, as awaitJob does, so a lagging watch cannot hang the attempt.
    const current = await deps.jobs.get(namespace, job.jobName, reads % 30 === 29);
    if (current?.metadata?.uid !== job.jobUid) {
      const fresh = await deps.jobs.get(namespace, job.jobName, true);
      if (fresh?.metadata?.uid !== job.jobUid) return { state: 'unread', why: `${job.jobName} was deleted` };
    } else {
      const outcome = outcomeOf(current);
      if (outcome?.outcome === 'failed') return { state: 'unread', why: `${job.jobName} failed (${outcome.reason})` };
      if (outcome?.outcome === 'succeeded') break;
    }
    context.heartbeat({ jobName: job.jobName });
    await context.sleep(pollMs);
  }
  const pod = (await podsOfJob(deps, namespace, job.jobName, job.jobUid)).find(printed);
  if (pod?.metadata?.name === undefined) return { state: 'unread', why: `no pod of ${job.jobName} is left to read` };
  const text = await deps.core.readNamespacedPodLog({ name: pod.metadata.name, namespace, container: HELM_CONTAINER });
  const { crds, behind } = await compareChartCrds(deps, target, job, text, () => Promise.resolve(true));
  return behind === undefined ? { state: 'current', crds } : { state: 'stale', crds, behind };
}
