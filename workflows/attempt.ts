/**
 * One install attempt: the Job of this attempt from one validated read, its wait, and the report. A step the
 * apiserver refuses for good ends the attempt as failed with that reason, reported at once.
 */
import { CancellationScope, patched } from '@temporalio/workflow';
import type { ChartTarget, CrdsHint, CrdsVerdict, JobOutcome, Preparation, StartedJob } from '../activities/types.js';
import { CrdsCurrentCondition, FailedCondition } from '../src/api/reasons.js';
import { SLOT_WAIT_MS, slotWaitHeartbeatTimeout } from '../src/build/job-slots.js';
import { crdsJobName, installJobName } from '../src/build/names.js';
import { permanentFailureOf, type StepFailure } from './failures.js';
import type { ChartState } from './state.js';
import { awaitInstallJob } from './install-wait.js';
import { installedStatus, jobCreatedStatus } from '../activities/status-updates.js';
import { activities, kubeCall, waitingCall, type ChartSteps } from './steps.js';
import { ChartEventReason } from '../src/api/event-reasons.js';

/** What prepare hands the attempt: never `noSlot`, which it waits out itself. */
type Prepared = Exclude<Preparation, { state: 'noSlot' }>;

export type AttemptResult =
  | { kind: 'succeeded'; digest: string }
  | { kind: 'failed'; reason: string; jobName: string | undefined }
  | { kind: 'refused'; reason: string }
  | { kind: 'gone' };

/**
 * One install attempt. A step the apiserver refuses for good (a permanent failure) ends it as a failed attempt
 * with that reason, reported at once, so the failurePolicy decides what follows, as for a failed Job.
 */
export async function attempt(chart: ChartSteps, state: ChartState): Promise<AttemptResult> {
  const target = chart.target();
  try {
    return await attemptSteps(chart, state, target);
  } catch (err) {
    const failure = permanentFailureOf(err);
    if (failure === undefined) throw err;
    await reportFailed(chart, target, failure);
    return { kind: 'failed', reason: failure.reason, jobName: undefined };
  }
}

/** Failed=True with the reason, and a Warning Event quoting the message; a report that cannot be written is skipped. */
async function reportFailed(
  chart: ChartSteps,
  target: ChartTarget,
  failure: StepFailure,
  observedGeneration?: number,
): Promise<void> {
  const { reason, message } = failure;
  await chart.bestEffort(() =>
    chart.setStatus(target, {
      conditions: [{ type: FailedCondition.type, status: 'True', reason, message }],
      phase: 'Failed',
      ...(observedGeneration === undefined ? {} : { observedGeneration }),
    }),
  );
  await chart.bestEffort(() =>
    chart.recordEvent(target, {
      type: 'Warning',
      reason: ChartEventReason.InstallFailed,
      message: `${reason}: ${message}`,
    }),
  );
}

/**
 * The Job of this attempt, from one validated read (prepareInstall); runs recorded before it take four steps.
 * While --max-running-jobs of helmflow's install Jobs run, prepareInstall creates none (`noSlot`): the attempt waits
 * for a slot in awaitJobSlot, which is not creating a Job, so a pause, delete or new spec interrupts it at once.
 */
async function prepare(chart: ChartSteps, state: ChartState, target: ChartTarget, crds: CrdsHint): Promise<Prepared> {
  for (;;) {
    const prepared = await creatingJob(chart, () => prepareSteps(chart, state, target, crds));
    if (prepared.state !== 'noSlot') return prepared;
    await activities.awaitJobSlot.executeWithOptions(
      {
        ...kubeCall,
        summary: `Wait for one of the --max-running-jobs Job slots for ${prepared.jobName}`,
        // It ends within 25 minutes (SLOT_WAIT_MS). The heartbeat timeout, short near the front of the line, is
        // what a wait lost on its way to a worker costs; without one the loss cost the whole start-to-close timeout.
        startToCloseTimeout: SLOT_WAIT_MS + 5 * 60_000,
        heartbeatTimeout: slotWaitHeartbeatTimeout(prepared.nearFront),
      },
      [target, prepared.jobName],
    );
  }
}

/**
 * Runs `create`, the steps that may create the attempt's Job, with `chart.creatingJob` set, out of reach of a cancel
 * of the attempt: a step cancelled mid-call goes on on its worker and could create the Job after the next step (a
 * pause's Job deletion, an uninstall's) looked for it, so the workflow lets it end first (install.ts). Runs recorded
 * before the patch pause-waits-for-job-create cancelled it at once on a Temporal cancel, and still do on replay.
 */
async function creatingJob<T>(chart: ChartSteps, create: () => Promise<T>): Promise<T> {
  // An attempt cancelled already creates nothing: its first step throws, as any step in a cancelled scope.
  if (CancellationScope.current().consideredCancelled) return create();
  let createScope: CancellationScope | undefined;
  let creating = true;
  CancellationScope.current().cancelRequested.catch(() => {
    // Asked only when a cancel finds a Job being created, so a plain install pays no marker.
    if (creating && !patched('pause-waits-for-job-create')) createScope?.cancel();
  });
  chart.creatingJob = true;
  try {
    return await CancellationScope.nonCancellable(() => {
      createScope = new CancellationScope();
      return createScope.run(create);
    });
  } finally {
    creating = false;
    chart.creatingJob = false;
  }
}

async function prepareSteps(
  chart: ChartSteps,
  state: ChartState,
  target: ChartTarget,
  crds: CrdsHint,
): Promise<Preparation> {
  const { ref, where } = chart;
  // A lean run (patch lean-chart-history) always prepares in one step, and needs no second marker for it.
  if (chart.lean || patched('one-prepare-step')) {
    return activities.prepareInstall.executeWithOptions(
      {
        ...waitingCall,
        summary: `Validate HelmChart ${where}, then create its ServiceAccount, binding, values and Job ${installJobName(ref.name)}${mayCompareCrds(crds) ? ` (or first ${crdsJobName(ref.name)}, before an upgrade with CRDs)` : ''} (attempt ${state.attempt})`,
      },
      // Nothing known yet (a plain install) adds no argument: its history stays as it was before the crds Job.
      hintGiven(crds) ? [target, state.attempt, crds] : [target, state.attempt],
    );
  }
  const inspection = await activities.inspectChart.executeWithOptions(
    { ...kubeCall, summary: `Validate HelmChart ${where} before any Job is created` },
    [target],
  );
  if (inspection.state === 'gone') return { state: 'gone' };
  const { generation } = inspection;
  if (inspection.refusal !== undefined) return { state: 'refused', generation, refusal: inspection.refusal };
  await activities.ensureIdentity.executeWithOptions(
    { ...kubeCall, summary: `Ensure ServiceAccount helm-${ref.name} bound to its ClusterRole` },
    [target],
  );
  await activities.ensureInstallInputs.executeWithOptions(
    { ...kubeCall, summary: `Ensure values Secret chart-values-${ref.name} (and chart ConfigMap)` },
    [target],
  );
  const job = await activities.startInstallJob.executeWithOptions(
    {
      ...waitingCall,
      summary: `Create Job ${installJobName(ref.name)} in ${ref.namespace} (attempt ${state.attempt})`,
    },
    [target, state.attempt],
  );
  return job === undefined ? { state: 'gone' } : { state: 'started', generation, job };
}

const mayCompareCrds = (crds: CrdsHint) => crds.chartCrds !== false && crds.checkedDigest === undefined;

const hintGiven = (crds: CrdsHint) => crds.chartCrds !== undefined || crds.checkedDigest !== undefined;

/** Waits for the crds Job and compares what it printed with the cluster's CRDs (activities/crds-first.ts). */
function compareCrds(chart: ChartSteps, target: ChartTarget, job: StartedJob): Promise<CrdsVerdict> {
  return activities.awaitChartCrds.executeWithOptions(
    {
      ...waitingCall,
      summary: `Wait for ${job.jobName}, then compare the chart's crds/ with the cluster's CRDs before helm upgrade`,
      startToCloseTimeout: `${job.deadlineSeconds + 120} seconds`,
    },
    [target, job],
  );
}

/** The attempt fails before helm upgrade runs: the cluster's CRDs are behind the chart's crds/. */
async function crdsStale(
  chart: ChartSteps,
  target: ChartTarget,
  behind: string,
  generation: number,
): Promise<AttemptResult> {
  const message = `helm upgrade did not run: the cluster's CRDs are behind the chart's crds/ (see ${CrdsCurrentCondition.type}):\n${behind}`;
  await reportFailed(chart, target, { reason: CrdsCurrentCondition.stale, message }, generation);
  return { kind: 'failed', reason: CrdsCurrentCondition.stale, jobName: undefined };
}

/** What a Job said of the chart's crds/, kept for the next attempt's decision (crdsStepOf). */
function learnCrds(state: ChartState, outcome: Pick<JobOutcome, 'chartCrds'>): void {
  if (outcome.chartCrds !== undefined) state.chartCrds = outcome.chartCrds > 0;
}

async function attemptSteps(chart: ChartSteps, state: ChartState, target: ChartTarget): Promise<AttemptResult> {
  const { ref, setStatus } = chart;
  const known = (): CrdsHint => (state.chartCrds === undefined ? {} : { chartCrds: state.chartCrds });
  let prepared = await prepare(chart, state, target, known());
  // Before an upgrade of a chart with CRDs, prepareInstall started helm-crds-<name> instead of the install Job:
  // its crds/ are compared (or applied) first, and an upgrade that would leave CRDs behind does not run.
  let crdsCompared = false;
  while (prepared.state === 'crdsCheck') {
    const checked = prepared.job;
    state.jobName = checked.jobName;
    const verdict = await compareCrds(chart, target, checked);
    if (verdict.state !== 'unread') learnCrds(state, { chartCrds: verdict.crds });
    if (verdict.state === 'stale') return crdsStale(chart, target, verdict.behind, prepared.generation);
    crdsCompared = verdict.state === 'current';
    prepared = await prepare(chart, state, target, { ...known(), checkedDigest: checked.digest });
  }
  if (prepared.state === 'gone') return { kind: 'gone' };
  const { generation } = prepared;
  // A chartContent chart's crds/ were compared from its archive, and the upgrade would leave CRDs behind.
  if (prepared.state === 'crdsStale') return crdsStale(chart, target, prepared.behind, generation);
  if (prepared.state === 'refused') {
    await reportFailed(chart, target, prepared.refusal, generation);
    return { kind: 'refused', reason: prepared.refusal.reason };
  }
  const { job } = prepared;
  state.jobName = job.jobName;
  // prepareInstall has written JobCreated (phase Installing) already; runs recorded before the lean shape write it here.
  if (!chart.lean) await setStatus(target, jobCreatedStatus(job.jobName, state.attempt, generation));
  const outcome = await awaitInstallJob(
    job,
    ref.name,
    // A lean run's wait writes the whole success report (phase Installed) in the write it makes anyway.
    async (summary, reported) => {
      const installed = chart.lean ? installedStatus(job.jobName, job.digest, generation) : undefined;
      const waited = await chart.awaitJob(job, summary, reported, installed, crdsCompared);
      learnCrds(state, waited);
      return waited;
    },
    chart.lean,
  );
  if (outcome.outcome === 'succeeded') {
    if (!chart.lean) await setStatus(target, installedStatus(job.jobName, job.digest, generation));
    return { kind: 'succeeded', digest: job.digest };
  }
  const reason = outcome.outcome === 'failed' ? outcome.reason : FailedCondition.jobDeleted;
  await activities.recordInstallFailure.executeWithOptions(
    { ...kubeCall, summary: `Record HelmChartInstallFailed for ${job.jobName} (${reason})` },
    [target, job.jobName, reason],
  );
  return { kind: 'failed', reason, jobName: job.jobName };
}
