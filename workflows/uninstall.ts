/**
 * Uninstall on delete: stop the install Job, helm uninstall through helm-delete-<name> (unless the chart is
 * unmanaged), clean up, release the finalizer. Every step up to the finalizer is bounded.
 */
import { CancellationScope, isCancellation } from '@temporalio/workflow';
import type { ChartTarget } from '../activities/types.js';
import { deleteJobName, installJobName } from '../src/build/names.js';
import { defaultTuning } from './contract.js';
import { boundedStepFailureOf, permanentFailureOf, type StepFailure } from './failures.js';
import type { ChartState } from './state.js';
import { activities, kubeCall, waitingCall, type ChartSteps } from './steps.js';
import { ChartEventReason } from '../src/api/event-reasons.js';
import { FailedCondition, JobCreatedCondition } from '../src/api/reasons.js';

/**
 * Every step is bounded: one the apiserver refuses for good (a namespace being deleted, a forbidden create) or
 * that keeps failing past its bound is skipped, and the finalizer is released all the same, with a
 * HelmChartUninstallFailed Event naming what was left behind.
 */
export async function uninstall(chart: ChartSteps, state: ChartState): Promise<void> {
  const { ref, where, bestEffort } = chart;
  chart.setPhase('Deleting');
  const target = chart.target();
  const left: string[] = [];
  // Every step ends: a transient error retried past this bound is reported and skipped like a permanent one.
  const uninstallBound = `${state.tuning.uninstallStepSeconds ?? defaultTuning.uninstallStepSeconds} seconds`;
  const stop = await bounded(() =>
    activities.deleteJob.executeWithOptions(
      {
        ...waitingCall,
        scheduleToCloseTimeout: uninstallBound,
        summary: `Stop any install: delete Job ${installJobName(ref.name)}`,
      },
      [ref, installJobName(ref.name)],
    ),
  );
  if (stop.failed !== undefined) left.push(`Job ${installJobName(ref.name)} (${describe(stop.failed)})`);
  if (state.keepRelease === true) {
    await keepReleaseNotice(chart, target);
  } else {
    const release = await uninstallRelease(chart, state, target, uninstallBound);
    if (release !== undefined) left.push(`release ${ref.name}, not uninstalled (${describe(release)})`);
  }
  const cleanUp = await bounded(() =>
    activities.removeInstallObjects.executeWithOptions(
      {
        ...kubeCall,
        scheduleToCloseTimeout: uninstallBound,
        summary: `Delete ServiceAccount, ClusterRoleBinding, Secret and ConfigMap of ${ref.name}`,
      },
      [target],
    ),
  );
  if (cleanUp.failed !== undefined) {
    left.push(
      `the ServiceAccount, ClusterRoleBinding, values Secret or ConfigMap of ${ref.name} (${describe(cleanUp.failed)})`,
    );
  }
  if (left.length > 0) {
    const message = `the finalizer is released anyway; left behind: ${left.join('; ')}`;
    await bestEffort(() =>
      chart.recordEvent(target, { type: 'Warning', reason: ChartEventReason.UninstallFailed, message }),
    );
  }
  // Retried while the apiserver is unreachable: releasing the finalizer is the one step a delete cannot skip.
  await bestEffort(() =>
    activities.releaseFinalizer.executeWithOptions(
      { ...kubeCall, summary: `Release the finalizer of HelmChart ${where}` },
      [target],
    ),
  );
  chart.setPhase('Deleted');
}

/** helm uninstall through helm-delete-<name>, bounded; returns why it could not run, if it could not. */
async function uninstallRelease(
  chart: ChartSteps,
  state: ChartState,
  target: ChartTarget,
  uninstallBound: string,
): Promise<StepFailure | undefined> {
  const { ref } = chart;
  const started = await bounded(() =>
    activities.startDeleteJob.executeWithOptions(
      {
        ...waitingCall,
        scheduleToCloseTimeout: uninstallBound,
        summary: `Create Job ${deleteJobName(ref.name)}: helm uninstall ${ref.name}`,
      },
      [target],
    ),
  );
  if (started.failed !== undefined) return started.failed;
  const job = started.value;
  if (job === undefined) return undefined;
  state.jobName = job.jobName;
  await chart.bestEffort(() =>
    chart.setStatus(target, {
      jobName: job.jobName,
      phase: 'Deleting',
      conditions: [
        {
          type: JobCreatedCondition.type,
          status: 'True',
          reason: JobCreatedCondition.uninstallCreated,
          message: job.jobName,
        },
      ],
    }),
  );
  let reason: string | undefined;
  try {
    const outcome = await CancellationScope.withTimeout(`${state.tuning.uninstallTimeoutSeconds} seconds`, () =>
      chart.awaitJob(job, `Wait for ${job.jobName}: helm uninstall ${ref.name}`),
    );
    if (outcome.outcome !== 'succeeded')
      reason = outcome.outcome === 'failed' ? outcome.reason : FailedCondition.jobDeleted;
  } catch (err) {
    if (isCancellation(err) && !CancellationScope.current().consideredCancelled)
      reason = FailedCondition.uninstallTimedOut;
    else reason = permanentFailureOf(err)?.reason;
    if (reason === undefined) throw err;
  }
  if (reason !== undefined) {
    // The seed: the finalizer is released anyway; the event names the release left behind.
    await bounded(() =>
      activities.recordUninstallFailure.executeWithOptions(
        {
          ...kubeCall,
          scheduleToCloseTimeout: uninstallBound,
          summary: `Record HelmChartUninstallFailed for release ${ref.name} (${reason})`,
        },
        [target, job.jobName, reason],
      ),
    );
  }
  return undefined;
}

/** An unmanaged chart: its release belongs to someone else now, so no helm uninstall runs (as in k3s). */
async function keepReleaseNotice(chart: ChartSteps, target: ChartTarget): Promise<void> {
  const { ref } = chart;
  const message = `annotated helm.k3sm.io/unmanaged: release ${ref.name} is left installed; no helm uninstall ran`;
  await chart.bestEffort(() =>
    chart.recordEvent(target, { type: 'Normal', reason: ChartEventReason.UninstallSkipped, message }),
  );
}

/** Runs an uninstall step; a permanent failure, or a transient one outlasting its bound, is returned, not thrown. */
async function bounded<T>(step: () => Promise<T>): Promise<{ value: T; failed?: undefined } | { failed: StepFailure }> {
  try {
    return { value: await step() };
  } catch (err) {
    const failed = boundedStepFailureOf(err);
    if (failed === undefined) throw err;
    return { failed };
  }
}

const describe = (failure: StepFailure) => `${failure.reason}: ${failure.message}`;
