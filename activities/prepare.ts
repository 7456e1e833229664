import { Context } from '@temporalio/activity';
import type { HelmChart } from '../src/api/index.js';
import { chartSource, crdsStepOf, planInstall } from '../src/build/index.js';
import { compareArchiveCrds } from './archive-crds.js';
import { releaseExists } from './chart-crds.js';
import { readInstallInput } from './charts.js';
import type { ActivityDeps } from './deps.js';
import { applyInstallInputs, ensureJobIdentity } from './identity.js';
import { PREPARE_HOLD_MS } from './job-slot-ledger.js';
import { jobCreatedInSlot, nearFront, reportWaitingForSlot, takeJobSlot } from './job-slots.js';
import { createAttemptJob } from './jobs.js';
import { setStatus } from './status.js';
import type { ChartTarget, CrdsHint, Preparation } from './types.js';
import { jobCreatedStatus } from './status-updates.js';

/**
 * One install attempt up to its Job, from ONE read of the HelmChart, its HelmChartConfig and Secrets: validated,
 * then every object (identity, values Secret, chart ConfigMap, Job) built from that same read, so an edit landing
 * meanwhile cannot reach the Job unchecked. Idempotent: a retry after a crash applies the same objects and finds
 * its own Job, then writes JobCreated (phase Installing) on the chart. Heartbeats between steps, so a worker that
 * dies here is replaced within the heartbeat timeout. While --max-running-jobs of helmflow's install Jobs run it
 * applies nothing and creates no Job: it says so on the chart and returns `noSlot` (the workflow waits in
 * awaitJobSlot, then calls it again), so a chart that waits applies its identity and inputs once, not twice.
 * A chartContent chart's crds/ are compared here, from its archive (compareArchiveCrds): before an upgrade that
 * would leave CRDs behind no Job is created (`crdsStale`). For a chart fetched by helm, before an upgrade whose
 * crds/ are to be compared first (crdsStepOf), the Job it creates is helm-crds-<name> instead, and the workflow
 * calls it again once they are (`crds.checkedDigest`).
 */
export async function prepareInstall(
  deps: ActivityDeps,
  target: ChartTarget,
  attempt: number,
  crds: CrdsHint = {},
): Promise<Preparation> {
  const input = await readInstallInput(deps, target);
  if (input === undefined) return { state: 'gone' };
  const generation = input.chart.metadata.generation ?? 0;
  const plan = planInstall(input, { ...deps.build, group: deps.group });
  if (!plan.ok) return { state: 'refused', generation, refusal: plan.refusal };
  const fetched = chartSource(input.chart.spec).kind !== 'content';
  if (!fetched) {
    heartbeat('crds');
    const behind = await compareArchiveCrds(deps, target, input.chart, `${plan.objects.digest}/${attempt}`);
    if (behind !== undefined) return { state: 'crdsStale', generation, behind };
  }
  const crdsFirst = fetched && (await comparesCrdsFirst(deps, input.chart, plan.objects.digest, crds));
  const built = crdsFirst ? plan.objects.crdsJob : plan.objects.job;
  const jobName = built.metadata?.name ?? '';
  const noSlot = async (running: number): Promise<Preparation> => {
    await reportWaitingForSlot(deps, target, input.chart, jobName, running);
    return { state: 'noSlot', generation, jobName, nearFront: nearFront(deps, target, jobName) };
  };
  // The slot first: a chart that will wait applies nothing now, only when it is called again with a slot. Held
  // PREPARE_HOLD_MS, long enough to apply under load, and taken again below, until the watch shows the Job.
  const first = await takeJobSlot(deps, target, jobName, PREPARE_HOLD_MS);
  if (!first.taken) return noSlot(first.running);
  heartbeat('identity');
  await ensureJobIdentity(deps, input.chart, plan.objects);
  heartbeat('install inputs');
  await applyInstallInputs(deps, input.chart, plan.objects);
  heartbeat('job');
  const slot = await takeJobSlot(deps, target, jobName);
  if (!slot.taken) return noSlot(slot.running);
  const job = await createAttemptJob(deps, target, built, attempt);
  // This attempt's Job came from an older spec, in an earlier try of this step (createAttemptJob).
  if (job === undefined) return { state: 'gone' };
  jobCreatedInSlot(deps, target, jobName, job.jobUid);
  // Written here rather than by a step of its own: one history event fewer per attempt, and idempotent.
  heartbeat('status');
  await setStatus(deps, target, jobCreatedStatus(job.jobName, attempt, generation), input.chart);
  return { state: crdsFirst ? 'crdsCheck' : 'started', generation, job };
}

/** crdsStepOf, with the release looked up only when the answer depends on it. */
async function comparesCrdsFirst(deps: ActivityDeps, chart: HelmChart, digest: string, crds: CrdsHint) {
  const known = { digest, ...crds };
  const step = crdsStepOf(known);
  if (step !== 'lookUpRelease') return step === 'checkCrds';
  return crdsStepOf({ ...known, releaseExists: await releaseExists(deps, chart) }) === 'checkCrds';
}

function heartbeat(step: string): void {
  Context.current().heartbeat({ step });
}
