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
  patched,
  proxyActivities,
  setHandler,
  upsertSearchAttributes,
  workflowInfo,
  allHandlersFinished,
  type ActivityOptions,
} from '@temporalio/workflow';
import type {
  ChartActivities,
  ChartEvent,
  ChartTarget,
  Preparation,
  StartedJob,
  StatusUpdate,
} from '../activities/types.js';
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
import { boundedStepFailureOf, permanentFailureOf, type StepFailure } from './failures.js';
import {
  holdAfterFailure,
  initialState,
  isStaleDesired,
  statusOf,
  supersedes,
  termAfter,
  wantsInstall,
  type ChartState,
} from './state.js';
import { eventSummary, statusSummary } from './summaries.js';

export interface ChartWorkflowInput {
  ref: ChartRef;
  tuning?: Partial<Tuning>;
  /** Set only by continue-as-new: the state of the previous run, pending signals included. */
  state?: ChartState;
}

export type ChartWorkflowResult = 'deleted';

/**
 * A plain Kubernetes call. A transient error is retried by Temporal (with backoff): an apiserver outage only
 * delays a chart; a permanent one ends the step at once (activities/kube-errors.ts). The short start-to-close
 * timeout hands a call lost with its worker to another worker within seconds.
 */
const kubeCall: ActivityOptions = {
  startToCloseTimeout: '20 seconds',
  retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '1 minute' },
};
/** A step that may wait (a Job being replaced or deleted): it heartbeats, so a lost worker shows within 10 s. */
const waitingCall: ActivityOptions = { ...kubeCall, startToCloseTimeout: '3 minutes', heartbeatTimeout: '10 seconds' };
const act = proxyActivities<ChartActivities>(kubeCall);

type AttemptResult =
  | { kind: 'succeeded'; digest: string }
  | { kind: 'failed'; reason: string; jobName: string | undefined }
  | { kind: 'refused'; reason: string }
  | { kind: 'gone' };

export async function helmChartWorkflow(input: ChartWorkflowInput): Promise<ChartWorkflowResult> {
  const s: ChartState = input.state ?? initialState(input.ref, { ...defaultTuning, ...input.tuning });
  const { ref } = s;
  const where = `${ref.namespace}/${ref.name}`;

  setHandler(desiredStateSignal, (desired) => {
    if (isStaleDesired(s, desired)) return;
    s.term = termAfter(s.term, desired.term);
    acceptDesired(s, desired);
  });
  setHandler(deleteSignal, (request) => {
    if (s.uid === undefined) s.uid = request.uid;
    if (request.uid !== s.uid) return;
    s.deleteRequested = true;
    if (request.keepRelease === true) s.keepRelease = true;
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

  /**
   * One install attempt. A step the apiserver refuses for good (a permanent failure) ends it as a failed attempt
   * with that reason, reported at once, so the failurePolicy decides what follows, as for a failed Job.
   */
  async function attempt(): Promise<AttemptResult> {
    const t = target();
    try {
      return await attemptSteps(t);
    } catch (err) {
      const failure = permanentFailureOf(err);
      if (failure === undefined) throw err;
      await reportFailed(t, failure);
      return { kind: 'failed', reason: failure.reason, jobName: undefined };
    }
  }

  /** Failed=True with the reason, and a Warning Event quoting the message; a report that cannot be written is skipped. */
  async function reportFailed(t: ChartTarget, failure: StepFailure, observedGeneration?: number): Promise<void> {
    const { reason, message } = failure;
    await bestEffort(() =>
      setStatus(t, {
        conditions: [{ type: 'Failed', status: 'True', reason, message }],
        phase: 'Failed',
        ...(observedGeneration === undefined ? {} : { observedGeneration }),
      }),
    );
    await bestEffort(() =>
      recordEvent(t, { type: 'Warning', reason: 'HelmChartInstallFailed', message: `${reason}: ${message}` }),
    );
  }

  /** The Job of this attempt, from one validated read (prepareInstall); runs recorded before it take four steps. */
  async function prepare(t: ChartTarget): Promise<Preparation> {
    if (patched('one-prepare-step')) {
      return act.prepareInstall.executeWithOptions(
        {
          ...waitingCall,
          summary: `Validate HelmChart ${where}, then create its ServiceAccount, binding, values and Job ${installJobName(ref.name)} (attempt ${s.attempt})`,
        },
        [t, s.attempt],
      );
    }
    const inspection = await act.inspectChart.executeWithOptions(
      { ...kubeCall, summary: `Validate HelmChart ${where} before any Job is created` },
      [t],
    );
    if (inspection.state === 'gone') return { state: 'gone' };
    const { generation } = inspection;
    if (inspection.refusal !== undefined) return { state: 'refused', generation, refusal: inspection.refusal };
    await act.ensureIdentity.executeWithOptions(
      { ...kubeCall, summary: `Ensure ServiceAccount helm-${ref.name} bound to its ClusterRole` },
      [t],
    );
    await act.ensureInstallInputs.executeWithOptions(
      { ...kubeCall, summary: `Ensure values Secret chart-values-${ref.name} (and chart ConfigMap)` },
      [t],
    );
    const job = await act.startInstallJob.executeWithOptions(
      {
        ...waitingCall,
        summary: `Create Job ${installJobName(ref.name)} in ${ref.namespace} (attempt ${s.attempt})`,
      },
      [t, s.attempt],
    );
    return job === undefined ? { state: 'gone' } : { state: 'started', generation, job };
  }

  async function attemptSteps(t: ChartTarget): Promise<AttemptResult> {
    const prepared = await prepare(t);
    if (prepared.state === 'gone') return { kind: 'gone' };
    const { generation } = prepared;
    if (prepared.state === 'refused') {
      await reportFailed(t, prepared.refusal, generation);
      return { kind: 'refused', reason: prepared.refusal.reason };
    }
    const { job } = prepared;
    s.jobName = job.jobName;
    await setStatus(t, {
      jobName: job.jobName,
      phase: 'Installing',
      observedGeneration: generation,
      conditions: [
        {
          type: 'JobCreated',
          status: 'True',
          reason: 'JobCreated',
          message: `${job.jobName} runs attempt ${s.attempt}`,
        },
      ],
    });
    const outcome = await awaitJob(job, `Wait for ${job.jobName}: helm upgrade --install ${ref.name}`);
    if (outcome.outcome === 'succeeded') {
      await setStatus(t, {
        jobName: job.jobName,
        phase: 'Installed',
        digest: job.digest,
        observedGeneration: generation,
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

  /** Runs a report; one the apiserver refuses for good (e.g. in a namespace being deleted) is not worth a stall. */
  async function bestEffort(report: () => Promise<void>): Promise<void> {
    try {
      await report();
    } catch (err) {
      if (permanentFailureOf(err) === undefined) throw err;
    }
  }

  /** The wait is bounded by the Job's own deadline; heartbeats let a new worker take over a lost one. */
  function awaitJob(job: StartedJob, summary: string) {
    return act.awaitJob.executeWithOptions(
      {
        ...kubeCall,
        summary,
        startToCloseTimeout: `${job.deadlineSeconds + 120} seconds`,
        heartbeatTimeout: '10 seconds',
      },
      [ref, { jobName: job.jobName, jobUid: job.jobUid, deadlineSeconds: job.deadlineSeconds }],
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
      const hold = holdAfterFailure(desired.failurePolicy);
      if (hold !== 'backoff') {
        // The failed Job and its logs stay for inspection until the spec (abort) or anything (retry) changes.
        s.halted = { digest: desired.digest, generation: desired.generation, until: hold };
        setPhase('Failed');
        return;
      }
      const seconds = reinstallBackoffSeconds(s.failures, s.tuning);
      setPhase('Backoff');
      if (result.jobName !== undefined) {
        await act.deleteJob.executeWithOptions(
          { ...waitingCall, summary: `Delete failed Job ${result.jobName} (failurePolicy reinstall)` },
          [ref, result.jobName],
        );
      }
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
      { ...waitingCall, summary: `Delete Job ${installJobName(ref.name)}: the workflow was cancelled` },
      [ref, installJobName(ref.name)],
    );
    const message = 'cancelled through Temporal: paused until the spec changes or a retry is requested';
    await setStatus(target(), {
      phase: 'Paused',
      conditions: [{ type: 'Paused', status: 'True', reason: 'Cancelled', message }],
    });
    await recordEvent(target(), { type: 'Normal', reason: 'HelmChartPaused', message });
  }

  /**
   * Every step is bounded: one the apiserver refuses for good (a namespace being deleted, a forbidden create) or
   * that keeps failing past its bound is skipped, and the finalizer is released all the same, with a
   * HelmChartUninstallFailed Event naming what was left behind.
   */
  async function uninstall(): Promise<void> {
    setPhase('Deleting');
    const t = target();
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
      await keepReleaseNotice(t);
    } else {
      const release = await uninstallRelease(t, uninstallBound);
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
      await bestEffort(() => recordEvent(t, { type: 'Warning', reason: 'HelmChartUninstallFailed', message }));
    }
    // Retried while the apiserver is unreachable: releasing the finalizer is the one step a delete cannot skip.
    await bestEffort(() =>
      act.releaseFinalizer.executeWithOptions({ ...kubeCall, summary: `Release the finalizer of HelmChart ${where}` }, [
        t,
      ]),
    );
    setPhase('Deleted');
  }

  /** helm uninstall through helm-delete-<name>, bounded; returns why it could not run, if it could not. */
  async function uninstallRelease(t: ChartTarget, uninstallBound: string): Promise<StepFailure | undefined> {
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
    await bestEffort(() =>
      setStatus(t, {
        jobName: job.jobName,
        phase: 'Deleting',
        conditions: [{ type: 'JobCreated', status: 'True', reason: 'UninstallJobCreated', message: job.jobName }],
      }),
    );
    let reason: string | undefined;
    try {
      const outcome = await CancellationScope.withTimeout(`${s.tuning.uninstallTimeoutSeconds} seconds`, () =>
        awaitJob(job, `Wait for ${job.jobName}: helm uninstall ${ref.name}`),
      );
      if (outcome.outcome !== 'succeeded') reason = outcome.outcome === 'failed' ? outcome.reason : 'JobDeleted';
    } catch (err) {
      if (isCancellation(err) && !CancellationScope.current().consideredCancelled) reason = 'UninstallTimedOut';
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
  async function keepReleaseNotice(t: ChartTarget): Promise<void> {
    const message = `annotated helm.k3sm.io/unmanaged: release ${ref.name} is left installed; no helm uninstall ran`;
    await bestEffort(() => recordEvent(t, { type: 'Normal', reason: 'HelmChartUninstallSkipped', message }));
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
