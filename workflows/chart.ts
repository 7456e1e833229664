/**
 * The chart workflow: one per HelmChart, started and fed only by signalWithStart from the controller. It keeps
 * the release installed (install Job, wait, failurePolicy) and, on delete, uninstalls and releases the finalizer.
 * Deterministic: it imports only @temporalio/workflow and pure modules.
 */
import {
  CancellationScope,
  condition,
  continueAsNew,
  isCancellation,
  proxyActivities,
  setHandler,
  upsertSearchAttributes,
  workflowInfo,
  allHandlersFinished,
  type ActivityOptions,
} from '@temporalio/workflow';
import type { ChartActivities, ChartEvent, ChartTarget, StartedJob, StatusUpdate } from '../activities/types.js';
import { deleteJobName, installJobName } from '../src/build/names.js';
import { reinstallBackoffSeconds } from './backoff.js';
import {
  chartNameKey,
  chartNamespaceKey,
  defaultTuning,
  deleteSignal,
  desiredStateSignal,
  phaseKey,
  retrySignal,
  statusQuery,
  type ChartRef,
  type DesiredState,
  type Phase,
  type Tuning,
} from './contract.js';
import { initialState, statusOf, supersedes, wantsInstall, type ChartState } from './state.js';
import { awaitInstallJob } from './install-wait.js';
import { eventSummary, statusSummary } from './summaries.js';

export interface ChartWorkflowInput {
  ref: ChartRef;
  tuning?: Partial<Tuning>;
  /** Set only by continue-as-new: the state of the previous run, pending signals included. */
  state?: ChartState;
}

export type ChartWorkflowResult = 'deleted';

/** Kubernetes calls are retried by Temporal (forever, with backoff): an apiserver outage only delays a chart. */
const kubeCall: ActivityOptions = {
  startToCloseTimeout: '2 minutes',
  retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '1 minute' },
};
const act = proxyActivities<ChartActivities>(kubeCall);

type AttemptResult =
  | { kind: 'succeeded'; digest: string }
  | { kind: 'failed'; reason: string; jobName: string }
  | { kind: 'refused'; reason: string }
  | { kind: 'gone' };

export async function helmChartWorkflow(input: ChartWorkflowInput): Promise<ChartWorkflowResult> {
  const s: ChartState = input.state ?? initialState(input.ref, { ...defaultTuning, ...input.tuning });
  const { ref } = s;
  const where = `${ref.namespace}/${ref.name}`;

  setHandler(desiredStateSignal, (desired) => {
    acceptDesired(s, desired);
  });
  setHandler(deleteSignal, (request) => {
    if (s.uid === undefined) s.uid = request.uid;
    if (request.uid === s.uid) s.deleteRequested = true;
  });
  setHandler(retrySignal, (request) => {
    if (request.token !== undefined && request.token === s.lastRetryToken) return;
    if (request.token !== undefined) s.lastRetryToken = request.token;
    s.retryRequest = request;
  });
  setHandler(statusQuery, () => statusOf(s));

  const setPhase = (phase: Phase) => {
    s.phase = phase;
    upsertSearchAttributes([
      { key: chartNamespaceKey, value: ref.namespace },
      { key: chartNameKey, value: ref.name },
      { key: phaseKey, value: phase },
    ]);
  };
  setPhase(s.phase);

  const target = (): ChartTarget => ({ ref, uid: s.uid ?? '' });
  const setStatus = (t: ChartTarget, update: StatusUpdate) =>
    act.setStatus.executeWithOptions({ ...kubeCall, summary: statusSummary(where, update) }, [t, update]);
  const recordEvent = (t: ChartTarget, event: ChartEvent) =>
    act.recordEvent.executeWithOptions({ ...kubeCall, summary: eventSummary(where, event) }, [t, event]);

  /** Runs `work` until it ends or the chart's desired state moves past `digest`; then cancels it. */
  async function interruptible<T>(digest: string, work: () => Promise<T>): Promise<T | 'interrupted'> {
    const workScope = new CancellationScope();
    const watchScope = new CancellationScope();
    const running = workScope.run(work);
    const superseded = watchScope.run(() => condition(() => supersedes(s, digest)));
    superseded.catch(() => undefined);
    try {
      const first = await Promise.race([
        running.then((value) => ({ value })),
        superseded.then(() => 'superseded' as const),
      ]);
      if (first !== 'superseded') return first.value;
      workScope.cancel();
      try {
        await running;
      } catch (err) {
        if (!isCancellation(err) || CancellationScope.current().consideredCancelled) throw err;
      }
      return 'interrupted';
    } finally {
      watchScope.cancel();
    }
  }

  async function attempt(): Promise<AttemptResult> {
    const t = target();
    const inspection = await act.inspectChart.executeWithOptions(
      { ...kubeCall, summary: `Validate HelmChart ${where} before any Job is created` },
      [t],
    );
    if (inspection.state === 'gone') return { kind: 'gone' };
    if (inspection.refusal !== undefined) {
      const { reason, message } = inspection.refusal;
      await setStatus(t, {
        conditions: [{ type: 'Failed', status: 'True', reason, message }],
        phase: 'Failed',
        observedGeneration: inspection.generation,
      });
      await recordEvent(t, { type: 'Warning', reason: 'HelmChartInstallFailed', message: `${reason}: ${message}` });
      return { kind: 'refused', reason };
    }
    await act.ensureIdentity.executeWithOptions(
      { ...kubeCall, summary: `Ensure ServiceAccount helm-${ref.name} bound to its ClusterRole` },
      [t],
    );
    await act.ensureInstallInputs.executeWithOptions(
      { ...kubeCall, summary: `Ensure values Secret chart-values-${ref.name} (and chart ConfigMap)` },
      [t],
    );
    const job = await act.startInstallJob.executeWithOptions(
      { ...kubeCall, summary: `Create Job ${installJobName(ref.name)} in ${ref.namespace} (attempt ${s.attempt})` },
      [t, s.attempt],
    );
    if (job === undefined) return { kind: 'gone' };
    s.jobName = job.jobName;
    await setStatus(t, {
      jobName: job.jobName,
      phase: 'Installing',
      observedGeneration: inspection.generation,
      conditions: [
        {
          type: 'JobCreated',
          status: 'True',
          reason: 'JobCreated',
          message: `${job.jobName} runs attempt ${s.attempt}`,
        },
      ],
    });
    const outcome = await awaitInstallJob(job, ref.name, (summary, reported) => awaitJob(job, summary, reported));
    if (outcome.outcome === 'succeeded') {
      await setStatus(t, {
        jobName: job.jobName,
        phase: 'Installed',
        digest: job.digest,
        observedGeneration: inspection.generation,
        conditions: [
          { type: 'Failed', status: 'False', reason: 'InstallSucceeded', message: `${job.jobName} succeeded` },
        ],
      });
      return { kind: 'succeeded', digest: job.digest };
    }
    const reason = outcome.outcome === 'failed' ? outcome.reason : 'JobDeleted';
    await act.recordInstallFailure.executeWithOptions(
      { ...kubeCall, summary: `Record HelmChartInstallFailed for ${job.jobName} (${reason})` },
      [t, job.jobName, reason],
    );
    return { kind: 'failed', reason, jobName: job.jobName };
  }

  /** The wait is bounded by the Job's own deadline; heartbeats let a new worker take over a lost one. */
  function awaitJob(job: StartedJob, summary: string, failedPodsReported?: number) {
    return act.awaitJob.executeWithOptions(
      {
        ...kubeCall,
        summary,
        startToCloseTimeout: `${job.deadlineSeconds + 120} seconds`,
        heartbeatTimeout: '30 seconds',
      },
      [ref, { jobName: job.jobName, jobUid: job.jobUid, deadlineSeconds: job.deadlineSeconds, failedPodsReported }],
    );
  }

  /** Install attempts for the current desired state until one settles it, the policy stops, or it is superseded. */
  async function install(): Promise<void> {
    for (;;) {
      const desired = s.desired;
      if (desired === undefined) return;
      s.attempt += 1;
      setPhase('Installing');
      const result = await interruptible(desired.digest, () => attempt());
      if (result === 'interrupted' || result.kind === 'gone') {
        // A chart gone under this uid waits for its next desired state (a delete, or a recreated chart's new uid)
        // instead of inspecting it again at once, forever.
        if (result !== 'interrupted')
          s.halted = { digest: desired.digest, generation: desired.generation, until: 'digest' };
        if (s.phase === 'Installing') setPhase(s.installedDigest === undefined ? 'Pending' : 'Installed');
        return;
      }
      if (result.kind === 'succeeded') {
        // What was asked is converged. The Job may carry a newer digest (it is built from a fresh read): the
        // controller signals that one too, and helm upgrade --install reruns harmlessly.
        s.installedDigest = desired.digest;
        s.failures = 0;
        s.halted = undefined;
        s.lastFailure = undefined;
        setPhase('Installed');
        return;
      }
      s.lastFailure = { reason: result.reason, digest: desired.digest };
      if (result.kind === 'refused') {
        s.halted = { digest: desired.digest, generation: desired.generation, until: 'digest' };
        setPhase('Failed');
        return;
      }
      s.failures += 1;
      if (desired.failurePolicy === 'abort' || desired.failurePolicy === 'retry') {
        // The failed Job and its logs stay for inspection until the spec (abort) or anything (retry) changes.
        const until = desired.failurePolicy === 'abort' ? 'generation' : 'digest';
        s.halted = { digest: desired.digest, generation: desired.generation, until };
        setPhase('Failed');
        return;
      }
      const seconds = reinstallBackoffSeconds(s.failures, s.tuning);
      setPhase('Backoff');
      await act.deleteJob.executeWithOptions(
        { ...kubeCall, summary: `Delete failed Job ${result.jobName} (failurePolicy reinstall)` },
        [ref, result.jobName],
      );
      const superseded = await condition(() => supersedes(s, desired.digest), `${seconds} seconds`, {
        summary: `Back off ${seconds}s before reinstalling ${ref.name} (failure ${s.failures})`,
      });
      // A chart that keeps failing stays in this loop: hand over to a fresh run between attempts when suggested.
      if (superseded || workflowInfo().continueAsNewSuggested) return;
    }
  }

  async function acceptRetry(): Promise<void> {
    const request = s.retryRequest;
    s.retryRequest = undefined;
    if (request === undefined) return;
    const wasPaused = s.paused;
    s.paused = false;
    s.halted = undefined;
    s.failures = 0;
    // A retry reruns the install even when nothing changed: helm upgrade --install converges.
    s.installedDigest = undefined;
    if (s.uid === undefined || s.desired === undefined) return;
    const message = `retry requested by ${request.requestedBy}${wasPaused ? '; the chart is no longer paused' : ''}`;
    await setStatus(target(), {
      conditions: [{ type: 'Paused', status: 'False', reason: 'RetryRequested', message }],
    });
    await recordEvent(target(), { type: 'Normal', reason: 'HelmChartRetry', message });
  }

  /** A new generation of the spec ended a pause (acceptDesired): the chart must stop saying it is paused. */
  async function unpausedBySpec(): Promise<void> {
    if (s.uid === undefined || s.desired === undefined) return;
    const message = `generation ${s.desired.generation} of the spec arrived; the chart is no longer paused`;
    await setStatus(target(), {
      conditions: [{ type: 'Paused', status: 'False', reason: 'SpecChanged', message }],
    });
  }

  /** Temporal cancel: stop the current attempt, delete its Job, and hold until the spec changes or a retry. */
  async function pause(): Promise<void> {
    s.paused = true;
    setPhase('Paused');
    if (s.uid === undefined) return;
    await act.deleteJob.executeWithOptions(
      { ...kubeCall, summary: `Delete Job ${installJobName(ref.name)}: the workflow was cancelled` },
      [ref, installJobName(ref.name)],
    );
    const message = 'cancelled through Temporal: paused until the spec changes or a retry is requested';
    await setStatus(target(), {
      phase: 'Paused',
      conditions: [{ type: 'Paused', status: 'True', reason: 'Cancelled', message }],
    });
    await recordEvent(target(), { type: 'Normal', reason: 'HelmChartPaused', message });
  }

  async function uninstall(): Promise<void> {
    setPhase('Deleting');
    const t = target();
    await act.deleteJob.executeWithOptions(
      { ...kubeCall, summary: `Stop any install: delete Job ${installJobName(ref.name)}` },
      [ref, installJobName(ref.name)],
    );
    const job = await act.startDeleteJob.executeWithOptions(
      { ...kubeCall, summary: `Create Job ${deleteJobName(ref.name)}: helm uninstall ${ref.name}` },
      [t],
    );
    if (job !== undefined) {
      s.jobName = job.jobName;
      await setStatus(t, {
        jobName: job.jobName,
        phase: 'Deleting',
        conditions: [{ type: 'JobCreated', status: 'True', reason: 'UninstallJobCreated', message: job.jobName }],
      });
      let reason: string | undefined;
      try {
        const outcome = await CancellationScope.withTimeout(`${s.tuning.uninstallTimeoutSeconds} seconds`, () =>
          awaitJob(job, `Wait for ${job.jobName}: helm uninstall ${ref.name}`),
        );
        if (outcome.outcome !== 'succeeded') reason = outcome.outcome === 'failed' ? outcome.reason : 'JobDeleted';
      } catch (err) {
        if (!isCancellation(err) || CancellationScope.current().consideredCancelled) throw err;
        reason = 'UninstallTimedOut';
      }
      if (reason !== undefined) {
        // The seed: the finalizer is released anyway; the event names the release left behind.
        await act.recordUninstallFailure.executeWithOptions(
          { ...kubeCall, summary: `Record HelmChartUninstallFailed for release ${ref.name} (${reason})` },
          [t, job.jobName, reason],
        );
      }
    }
    await act.removeInstallObjects.executeWithOptions(
      { ...kubeCall, summary: `Delete ServiceAccount, ClusterRoleBinding, Secret and ConfigMap of ${ref.name}` },
      [t],
    );
    await act.releaseFinalizer.executeWithOptions(
      { ...kubeCall, summary: `Release the finalizer of HelmChart ${where}` },
      [t],
    );
    setPhase('Deleted');
  }

  const continueWith = async (state: ChartState): Promise<never> => {
    // Shielded: after a Temporal cancel the root scope stays cancelled, and a cancellable wait would end the run.
    await CancellationScope.nonCancellable(() => condition(allHandlersFinished));
    return continueAsNew<typeof helmChartWorkflow>({ ref, state });
  };

  try {
    for (;;) {
      // Also woken by Temporal's suggestion: signals alone (a controller resyncing) grow an idle run's history.
      await condition(
        () =>
          s.deleteRequested || s.retryRequest !== undefined || wantsInstall(s) || workflowInfo().continueAsNewSuggested,
      );
      if (s.deleteRequested) {
        await uninstall();
        // A chart recreated under this name during the delete starts over in a fresh run.
        if (s.successor !== undefined) {
          const next = { ...initialState(ref, s.tuning), uid: s.successor.uid, desired: s.successor };
          return await continueWith(next);
        }
        return 'deleted';
      }
      if (s.retryRequest !== undefined) await acceptRetry();
      else if (s.phase === 'Paused' && !s.paused) await unpausedBySpec();
      if (wantsInstall(s)) await install();
      if (workflowInfo().continueAsNewSuggested) return await continueWith(s);
    }
  } catch (err) {
    if (!isCancellation(err)) throw err;
    await CancellationScope.nonCancellable(pause);
    // A fresh run, so the chart can be cancelled again later.
    return await continueWith(s);
  }
}

/** A new desired state: a change of uid means the chart was recreated; during a delete it waits its turn. */
function acceptDesired(s: ChartState, desired: DesiredState): void {
  if (s.uid !== undefined && desired.uid !== s.uid) {
    if (s.deleteRequested) {
      s.successor = desired;
      return;
    }
    // The old chart vanished without a delete reaching us (its finalizer was removed by hand): start over.
    Object.assign(s, { ...initialState(s.ref, s.tuning), uid: desired.uid, desired });
    return;
  }
  s.uid = desired.uid;
  if (s.paused && s.desired !== undefined && desired.generation !== s.desired.generation) s.paused = false;
  s.desired = desired;
}
