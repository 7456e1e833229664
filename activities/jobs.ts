import { Context } from '@temporalio/activity';
import type { V1Job } from '@kubernetes/client-node';
import {
  attemptAnnotationKey,
  buildDelete,
  buildInstall,
  digestAnnotationKey,
  uidLabelKey,
} from '../src/build/index.js';
import { waitFor } from '../src/lib/wait.js';
import { isConflict, isNotFound } from '../src/kube/client.js';
import type { ChartRef } from '../src/api/index.js';
import { readChart, readInstallInput } from './charts.js';
import type { ActivityDeps } from './deps.js';
import { reportFailedPods, reportInstalled } from './install-attempts.js';
import { ensureJobIdentity } from './identity.js';
import { nextLook } from './next-look.js';
import { preflightModeOf } from './preflight.js';
import { checkChartCrds, printsChartCrds } from './chart-crds.js';
import type { AwaitedJob, ChartTarget, JobOutcome, StartedJob } from './types.js';
import { recordInstallOutcome } from '../src/observability/metrics.js';
import { FailedCondition } from '../src/api/reasons.js';

function started(deps: ActivityDeps, job: V1Job): StartedJob {
  return {
    jobName: job.metadata?.name ?? '',
    jobUid: job.metadata?.uid ?? '',
    digest: job.metadata?.annotations?.[digestAnnotationKey(deps.group)] ?? '',
    deadlineSeconds: job.spec?.activeDeadlineSeconds ?? 600,
  };
}

/** Deletes the Job and its pods (foreground) and returns once the Job object is gone. */
export async function deleteJobAndWait(deps: ActivityDeps, namespace: string, name: string): Promise<void> {
  try {
    await deps.batch.deleteNamespacedJob({ name, namespace, propagationPolicy: 'Foreground' });
  } catch (err) {
    if (isNotFound(err)) return;
    throw err;
  }
  await waitFor(
    `Job ${namespace}/${name} to be deleted`,
    async () => {
      Context.current().heartbeat();
      return (await deps.jobs.get(namespace, name, true)) === undefined;
    },
    { timeoutMs: 90_000, intervalMs: 500 },
  );
}

/**
 * Creates `desired` unless the same Job (same chart uid, digest and attempt) already exists — an activity retried
 * after a crash finds its own Job. Any other Job of that name is deleted first and waited for: never two at once.
 */
async function replaceJob(deps: ActivityDeps, desired: V1Job, chartUid: string): Promise<V1Job> {
  const existing = await deps.jobs.get(desired.metadata?.namespace ?? '', desired.metadata?.name ?? '', true);
  return replaceFound(deps, desired, chartUid, existing);
}

async function replaceFound(
  deps: ActivityDeps,
  desired: V1Job,
  chartUid: string,
  existing: V1Job | undefined,
): Promise<V1Job> {
  const namespace = desired.metadata?.namespace ?? '';
  const name = desired.metadata?.name ?? '';
  if (existing !== undefined) {
    if (jobRelation(deps, existing, desired, chartUid) === 'same') return existing;
    await deleteJobAndWait(deps, namespace, name);
  }
  try {
    return await deps.batch.createNamespacedJob({ namespace, body: desired });
  } catch (err) {
    // A concurrent create (HA overlap) of the very same Job is fine; anything else is retried by Temporal.
    if (isConflict(err)) {
      const raced = await deps.jobs.get(namespace, name, true);
      if (
        raced?.metadata?.annotations?.[attemptAnnotationKey(deps.group)] ===
        desired.metadata?.annotations?.[attemptAnnotationKey(deps.group)]
      ) {
        return raced as V1Job;
      }
    }
    throw err;
  }
}

/**
 * How `existing` stands to `desired`: the same Job (this chart uid, attempt and digest), this attempt's Job built
 * from another spec, or another Job.
 */
function jobRelation(deps: ActivityDeps, existing: V1Job, desired: V1Job, chartUid: string) {
  const same = (key: string) => existing.metadata?.annotations?.[key] === desired.metadata?.annotations?.[key];
  const sameChart = existing.metadata?.labels?.[uidLabelKey(deps.group)] === chartUid;
  if (!sameChart || !same(attemptAnnotationKey(deps.group))) return 'other';
  return same(digestAnnotationKey(deps.group)) ? 'same' : 'otherSpec';
}

export async function startInstallJob(
  deps: ActivityDeps,
  target: ChartTarget,
  attempt: number,
): Promise<StartedJob | undefined> {
  const input = await readInstallInput(deps, target);
  if (input === undefined) return undefined;
  return createAttemptJob(deps, target, buildInstall(input, { ...deps.build, group: deps.group }).job, attempt);
}

/**
 * Creates this attempt's Job (its install Job, or its crds Job) as built from a read already validated (replacing any
 * older one). Undefined, touching nothing, when this attempt's Job exists with another digest: an earlier try of the
 * same step created it and failed after, and the spec changed before this try read it. Replacing it would start a
 * second Job under the same attempt; the workflow instead ends the attempt as for a chart gone and waits for the
 * next desired state, the one this try read, whose attempt replaces the Job under a new number.
 */
export async function createAttemptJob(
  deps: ActivityDeps,
  target: ChartTarget,
  job: V1Job,
  attempt: number,
): Promise<StartedJob | undefined> {
  job.metadata ??= {};
  job.metadata.annotations = { ...job.metadata.annotations, [attemptAnnotationKey(deps.group)]: String(attempt) };
  const existing = await deps.jobs.get(job.metadata.namespace ?? '', job.metadata.name ?? '', true);
  if (existing !== undefined && jobRelation(deps, existing, job, target.uid) === 'otherSpec') return undefined;
  return started(deps, await replaceFound(deps, job, target.uid, existing));
}

export async function startDeleteJob(deps: ActivityDeps, target: ChartTarget): Promise<StartedJob | undefined> {
  const chart = await readChart(deps, target);
  if (chart === undefined) return undefined;
  const { job, serviceAccount, clusterRoleBinding } = buildDelete(chart, { ...deps.build, group: deps.group });
  // A chart refused before any install never got its identity: the uninstall Job needs it all the same.
  await ensureJobIdentity(deps, chart, { serviceAccount, clusterRoleBinding });
  job.metadata ??= {};
  job.metadata.annotations = { ...job.metadata.annotations, [attemptAnnotationKey(deps.group)]: 'delete' };
  return started(deps, await replaceJob(deps, job, target.uid));
}

export async function deleteJob(deps: ActivityDeps, ref: ChartRef, jobName: string): Promise<void> {
  await deleteJobAndWait(deps, ref.namespace, jobName);
}

/** How a Job ended, from its conditions; undefined while it runs. */
export function outcomeOf(job: V1Job): JobOutcome | undefined {
  for (const condition of job.status?.conditions ?? []) {
    if (condition.status !== 'True') continue;
    if (condition.type === 'Complete') return { outcome: 'succeeded' };
    if (condition.type === 'Failed')
      return { outcome: 'failed', reason: condition.reason ?? FailedCondition.jobFailed };
  }
  return undefined;
}

const pollMs = 1_000;

/** How many failed reads of the chart's printed crds/ one wait tries before it gives up on that report. */
export const CRDS_READ_TRIES = 3;

/** The chart a Job belongs to, from its uid label (the wait is given only the chart's ref). */
const targetOf = (deps: ActivityDeps, ref: ChartRef, job: V1Job): ChartTarget => ({
  ref,
  uid: job.metadata?.labels?.[uidLabelKey(deps.group)] ?? '',
});

// A watch's cached Job carries its timestamps as the apiserver's strings, a direct read as Dates: accept both.
const secondsSince = (time: Date | string | undefined) =>
  time === undefined ? 0 : (Date.now() - new Date(time).getTime()) / 1000;

/**
 * Looks at the Job once a second until it is gone (none of that name, or another uid), heartbeating between looks,
 * so a cancelled attempt stops at once and a worker that dies mid-wait is replaced by another that resumes the wait.
 * Reads the shared watch's cache; every 30th look goes to the apiserver itself, so a watch that silently lags
 * cannot hang a chart. Yields the Job at each look that finds it.
 */
export async function* jobLooks(
  deps: ActivityDeps,
  namespace: string,
  job: { jobName: string; jobUid: string },
): AsyncGenerator<V1Job, void> {
  const context = Context.current();
  await deps.jobs.start();
  for (let reads = 0; ; reads += 1) {
    const current = await deps.jobs.get(namespace, job.jobName, reads % 30 === 29);
    if (current?.metadata?.uid === job.jobUid) yield current;
    else {
      const fresh = await deps.jobs.get(namespace, job.jobName, true);
      if (fresh?.metadata?.uid !== job.jobUid) return;
    }
    context.heartbeat({ jobName: job.jobName });
    await nextLook(context, pollMs);
  }
}

/**
 * An install Job's comparison of the chart's crds/ its `crds` step printed (chart-crds.ts), made once per wait as
 * soon as a pod has printed them, unless the attempt compared them before the Job. It is a report riding on the
 * wait: a log the node cannot serve now (seen as the apiserver's proxy timing out on a loaded node) is tried again
 * at a later look, and given up after a few, rather than failing the wait and delaying the chart by the retry.
 */
function crdsReport(deps: ActivityDeps, ref: ChartRef, job: AwaitedJob) {
  let done = job.failedPodsReported === undefined || job.crdsCompared === true;
  let failures = 0;
  let chartCrds: number | undefined;
  return {
    async look(current: V1Job): Promise<void> {
      if (done) return;
      if (!printsChartCrds(current)) {
        done = true;
        return;
      }
      try {
        chartCrds = await checkChartCrds(deps, targetOf(deps, ref, current), current);
        done = chartCrds !== undefined;
      } catch (err) {
        failures += 1;
        done = failures >= CRDS_READ_TRIES;
        deps.log.warn(
          { err, job: job.jobName, tries: failures, givenUp: done },
          "could not compare the chart's crds/ the install Job printed",
        );
      }
    },
    /** The outcome, with how many CRDs the chart printed when this wait read them. */
    on: (outcome: JobOutcome): JobOutcome => (chartCrds === undefined ? outcome : { ...outcome, chartCrds }),
  };
}

/**
 * Waits for the Job to finish (jobLooks). For an install Job (failedPodsReported set), a pod that fails while the
 * Job retries is reported on the chart at once and ends the wait, so the workflow can say it too; a retried report
 * counts nothing twice (event-series.ts).
 */
export async function awaitJob(deps: ActivityDeps, ref: ChartRef, job: AwaitedJob): Promise<JobOutcome> {
  const crds = crdsReport(deps, ref, job);
  for await (const current of jobLooks(deps, ref.namespace, job)) {
    const outcome = outcomeOf(current);
    // While a pod runs or as the Job ends (a fast pod may finish between two looks); a Job backing off after
    // failed pre-flights lists nothing.
    if ((current.status?.active ?? 0) > 0 || outcome !== undefined) await crds.look(current);
    const reporting = job.failedPodsReported !== undefined;
    if (outcome?.outcome === 'succeeded' && reporting)
      await reportInstalled(
        deps,
        targetOf(deps, ref, current),
        job.jobName,
        job.installed,
        preflightModeOf(current, deps.group),
      );
    if (outcome !== undefined) {
      if (reporting) recordInstallOutcome(outcome.outcome, secondsSince(current.metadata?.creationTimestamp));
      return crds.on(outcome);
    }
    const failedPods = current.status?.failed ?? 0;
    if (reporting && failedPods > (job.failedPodsReported ?? 0)) {
      const backoffLimit = current.spec?.backoffLimit;
      const target = targetOf(deps, ref, current);
      const preflight = preflightModeOf(current, deps.group);
      const { exitCode } = await reportFailedPods(deps, target, { ...job, backoffLimit, preflight }, failedPods);
      return crds.on({ outcome: 'podFailed', failedPods, ...(exitCode === undefined ? {} : { exitCode }) });
    }
  }
  return { outcome: 'gone' };
}
