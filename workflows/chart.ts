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
  initialState,
  isStaleDesired,
  statusOf,
  suspensionToReport,
  termAfter,
  wantsInstall,
  type ChartState,
} from './state.js';
import { install, untilJobCreated } from './install.js';
import { acceptRetry, pause, unpausedBySpec } from './pause.js';
import { recordRelease } from './release.js';
import { chartSteps } from './steps.js';
import { reportSuspension } from './suspend.js';
import { uninstall } from './uninstall.js';

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
  c.publishSearchAttributes();

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
      if (s.retryRequest !== undefined) await acceptRetry(c, s);
      else if (s.phase === 'Paused' && !s.paused) await unpausedBySpec(c, s);
      if (wantsInstall(s)) await install(c, s);
      if (s.releaseStale === true) {
        s.releaseStale = false;
        await recordRelease(c);
      }
      if (workflowInfo().continueAsNewSuggested) return await continueWith(s);
    }
  } catch (err) {
    if (!isCancellation(err)) throw err;
    // The pause must find the Job to delete it.
    await CancellationScope.nonCancellable(() => untilJobCreated(c, 'pause-waits-for-job-create'));
    await CancellationScope.nonCancellable(() => pause(c, s));
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
