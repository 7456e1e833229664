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
import { act, kubeCall, waitingCall, type ChartSteps } from './steps.js';
import { ChartEventReason } from '../src/api/event-reasons.js';
import { FailedCondition, JobCreatedCondition } from '../src/api/reasons.js';

/**
 * Every step is bounded: one the apiserver refuses for good (a namespace being deleted, a forbidden create) or
 * that keeps failing past its bound is skipped, and the finalizer is released all the same, with a
 * HelmChartUninstallFailed Event naming what was left behind.
 */
export async function uninstall(c: ChartSteps, s: ChartState): Promise<void> {
  const { ref, where, bestEffort } = c;
  c.setPhase('Deleting');
  const t = c.target();
  const left: string[] = [];
  // Every step ends: a transient error retried past this bound is reported and skipped like a permanent one.
  const uninstallBound = `${s.tuning.uninstallStepSeconds ?? defaultTuning.uninstallStepSeconds} seconds`;
  const stop = await bounded(() =>
    act.deleteJob.executeWithOptions(
      {
        ...waitingCall,
        scheduleToCloseTimeout: uninstallBound,
        summary: `Stop any install: delete Job ${installJobName(ref.name)}`,
      },
      [ref, installJobName(ref.name)],
    ),
  );
  if (stop.failed !== undefined) left.push(`Job ${installJobName(ref.name)} (${describe(stop.failed)})`);
  if (s.keepRelease === true) {
    await keepReleaseNotice(c, t);
  } else {
    const release = await uninstallRelease(c, s, t, uninstallBound);
    if (release !== undefined) left.push(`release ${ref.name}, not uninstalled (${describe(release)})`);
  }
  const cleanUp = await bounded(() =>
    act.removeInstallObjects.executeWithOptions(
      {
        ...kubeCall,
        scheduleToCloseTimeout: uninstallBound,
        summary: `Delete ServiceAccount, ClusterRoleBinding, Secret and ConfigMap of ${ref.name}`,
      },
      [t],
    ),
  );
  if (cleanUp.failed !== undefined) {
    left.push(
      `the ServiceAccount, ClusterRoleBinding, values Secret or ConfigMap of ${ref.name} (${describe(cleanUp.failed)})`,
    );
  }
  if (left.length > 0) {
    const message = `the finalizer is released anyway; left behind: ${left.join('; ')}`;
    await bestEffort(() => c.recordEvent(t, { type: 'Warning', reason: ChartEventReason.UninstallFailed, message }));
  }
  // Retried while the apiserver is unreachable: releasing the finalizer is the one step a delete cannot skip.
  await bestEffort(() =>
    act.releaseFinalizer.executeWithOptions({ ...kubeCall, summary: `Release the finalizer of HelmChart ${where}` }, [
      t,
    ]),
  );
  c.setPhase('Deleted');
}

/** helm uninstall through helm-delete-<name>, bounded; returns why it could not run, if it could not. */
async function uninstallRelease(
  c: ChartSteps,
  s: ChartState,
  t: ChartTarget,
  uninstallBound: string,
): Promise<StepFailure | undefined> {
  const { ref } = c;
  const started = await bounded(() =>
    act.startDeleteJob.executeWithOptions(
      {
        ...waitingCall,
        scheduleToCloseTimeout: uninstallBound,
        summary: `Create Job ${deleteJobName(ref.name)}: helm uninstall ${ref.name}`,
      },
      [t],
    ),
  );
  if (started.failed !== undefined) return started.failed;
  const job = started.value;
  if (job === undefined) return undefined;
  s.jobName = job.jobName;
  await c.bestEffort(() =>
    c.setStatus(t, {
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
    const outcome = await CancellationScope.withTimeout(`${s.tuning.uninstallTimeoutSeconds} seconds`, () =>
      c.awaitJob(job, `Wait for ${job.jobName}: helm uninstall ${ref.name}`),
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
      act.recordUninstallFailure.executeWithOptions(
        {
          ...kubeCall,
          scheduleToCloseTimeout: uninstallBound,
          summary: `Record HelmChartUninstallFailed for release ${ref.name} (${reason})`,
        },
        [t, job.jobName, reason],
      ),
    );
  }
  return undefined;
}

/** An unmanaged chart: its release belongs to someone else now, so no helm uninstall runs (as in k3s). */
async function keepReleaseNotice(c: ChartSteps, t: ChartTarget): Promise<void> {
  const { ref } = c;
  const message = `annotated helm.k3sm.io/unmanaged: release ${ref.name} is left installed; no helm uninstall ran`;
  await c.bestEffort(() => c.recordEvent(t, { type: 'Normal', reason: ChartEventReason.UninstallSkipped, message }));
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
