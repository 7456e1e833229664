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
  setHandler,
  workflowInfo,
  allHandlersFinished,
} from '@temporalio/workflow';
import { installJobName } from '../src/build/names.js';
import { attempt } from './attempt.js';
import { reinstallBackoffSeconds } from './backoff.js';
import {
  defaultTuning,
  deleteSignal,
  desiredStateSignal,
  releaseChangedSignal,
  retrySignal,
  statusQuery,
  type ChartRef,
  type DesiredState,
  type Tuning,
} from './contract.js';
import { reportDependencies } from './dependencies.js';
import {
  dependenciesToReport,
  holdAfterFailure,
  initialState,
  isStaleDesired,
  statusOf,
  supersedes,
  suspensionToReport,
  termAfter,
  wantsInstall,
  type ChartState,
} from './state.js';
import { act, chartSteps, waitingCall } from './steps.js';
import { recordRelease } from './release.js';
import { reportSuspension } from './suspend.js';
import { uninstall } from './uninstall.js';
import { ChartEventReason } from '../src/api/event-reasons.js';
import { PausedCondition } from '../src/api/reasons.js';

export interface ChartWorkflowInput {
  ref: ChartRef;
  tuning?: Partial<Tuning>;
  /** Set only by continue-as-new: the state of the previous run, pending signals included. */
  state?: ChartState;
}

export type ChartWorkflowResult = 'deleted';

export async function helmChartWorkflow(input: ChartWorkflowInput): Promise<ChartWorkflowResult> {
  const s: ChartState = input.state ?? initialState(input.ref, { ...defaultTuning, ...input.tuning });
  const { ref } = s;

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
  setHandler(releaseChangedSignal, () => {
    s.releaseStale = true;
  });

  // Decided once, here: patched() may answer differently later in a run that replays into live execution.
  const c = chartSteps(s, patched('lean-chart-history'));
  const { setPhase, setStatus, recordEvent, target, personWaiting } = c;
  c.publishSearchAttributes();

  /**
   * Waits while a step creates the Job (attempt.ts, creatingJob), so the next step finds the Job to delete or
   * replace: a step cancelled mid-call goes on on its worker. `patch` is asked only when a Job is being created, so
   * runs recorded before it replay, and a plain install pays no marker.
   */
  async function untilJobCreated(patch: string): Promise<void> {
    if (c.creatingJob && patched(patch)) await condition(() => !c.creatingJob);
  }

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
      // The next step (a delete's, or the next attempt's) must find the Job: its install could outlive an uninstall.
      await untilJobCreated('job-create-ends-before-cancel');
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

  /** Install attempts for the current desired state until one settles it, the policy stops, or it is superseded. */
  async function install(): Promise<void> {
    for (;;) {
      const desired = s.desired;
      // A suspend or a dependency hold that arrived during a backoff stops the loop; runs recorded before either
      // existed never carry one.
      if (desired === undefined || desired.suspended === true || desired.dependencies !== undefined) return;
      s.attempt += 1;
      setPhase('Installing');
      const result = await interruptible(desired.digest, () => attempt(c, s));
      if (result === 'interrupted' || result.kind === 'gone') {
        // A chart gone under this uid waits for its next desired state (a delete, or a recreated chart's new uid)
        // instead of inspecting it again at once, forever.
        if (result !== 'interrupted')
          s.halted = { digest: desired.digest, generation: desired.generation, until: 'digest' };
        // The stopped attempt's Job may have changed the release already: the installed spec is no longer known
        // to be what runs, so a spec changed back to it installs again (and its Job replaces the stopped one).
        else if (s.installedDigest !== undefined && patched('reinstall-after-interrupted-attempt'))
          s.installedDigest = undefined;
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
      // The chart now says Failed, and a failed Job may have changed the release: the installed digest no longer
      // says what runs, so a desired state changed back to it installs again (and says Installed) instead of
      // leaving the chart Failed for a state it no longer has.
      if (s.installedDigest !== undefined && patched('reinstall-after-failed-change')) s.installedDigest = undefined;
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
    await setStatus(
      target(),
      {
        conditions: [{ type: PausedCondition.type, status: 'False', reason: PausedCondition.retryRequested, message }],
      },
      personWaiting,
    );
    await recordEvent(target(), { type: 'Normal', reason: ChartEventReason.Retry, message }, personWaiting);
  }

  /** A new generation of the spec ended a pause (acceptDesired): the chart must stop saying it is paused. */
  async function unpausedBySpec(): Promise<void> {
    if (s.uid === undefined || s.desired === undefined) return;
    const message = `generation ${s.desired.generation} of the spec arrived; the chart is no longer paused`;
    await setStatus(target(), {
      conditions: [{ type: PausedCondition.type, status: 'False', reason: PausedCondition.specChanged, message }],
    });
  }

  /** Temporal cancel: stop the current attempt, delete its Job, and hold until the spec changes or a retry. */
  async function pause(): Promise<void> {
    s.paused = true;
    setPhase('Paused');
    if (s.uid === undefined) return;
    await act.deleteJob.executeWithOptions(
      {
        ...waitingCall,
        ...personWaiting,
        summary: `Delete Job ${installJobName(ref.name)}: the workflow was cancelled`,
      },
      [ref, installJobName(ref.name)],
    );
    const message = 'cancelled through Temporal: paused until the spec changes or a retry is requested';
    await setStatus(
      target(),
      {
        phase: 'Paused',
        conditions: [{ type: PausedCondition.type, status: 'True', reason: PausedCondition.cancelled, message }],
      },
      personWaiting,
    );
    await recordEvent(target(), { type: 'Normal', reason: ChartEventReason.Paused, message }, personWaiting);
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
          s.deleteRequested ||
          s.retryRequest !== undefined ||
          wantsInstall(s) ||
          suspensionToReport(s) !== undefined ||
          dependenciesToReport(s) !== undefined ||
          s.releaseStale === true ||
          workflowInfo().continueAsNewSuggested,
      );
      if (s.deleteRequested) {
        await uninstall(c, s);
        // A chart recreated under this name during the delete starts over in a fresh run.
        if (s.successor !== undefined) {
          const next = { ...initialState(ref, s.tuning), uid: s.successor.uid, desired: s.successor };
          return await continueWith(next);
        }
        return 'deleted';
      }
      const suspension = suspensionToReport(s);
      if (suspension !== undefined) await reportSuspension(c, s, suspension);
      const dependencies = dependenciesToReport(s);
      if (dependencies !== undefined) await reportDependencies(c, s, dependencies);
      if (s.retryRequest !== undefined) await acceptRetry();
      else if (s.phase === 'Paused' && !s.paused) await unpausedBySpec();
      if (wantsInstall(s)) await install();
      if (s.releaseStale === true) {
        s.releaseStale = false;
        await recordRelease(c);
      }
      if (workflowInfo().continueAsNewSuggested) return await continueWith(s);
    }
  } catch (err) {
    if (!isCancellation(err)) throw err;
    // The pause must find the Job to delete it.
    await CancellationScope.nonCancellable(() => untilJobCreated('pause-waits-for-job-create'));
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
