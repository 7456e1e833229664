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
  const state: ChartState = input.state ?? initialState(input.ref, { ...defaultTuning, ...input.tuning });
  const { ref } = state;

  setHandler(desiredStateSignal, (desired) => {
    if (isStaleDesired(state, desired)) return;
    state.term = termAfter(state.term, desired.term);
    acceptDesired(state, desired);
  });
  setHandler(deleteSignal, (request) => {
    if (state.uid === undefined) state.uid = request.uid;
    if (request.uid !== state.uid) return;
    state.deleteRequested = true;
    if (request.keepRelease === true) state.keepRelease = true;
  });
  setHandler(retrySignal, (request) => {
    if (request.token !== undefined && request.token === state.lastRetryToken) return;
    if (request.token !== undefined) state.lastRetryToken = request.token;
    state.retryRequest = request;
  });
  setHandler(statusQuery, () => statusOf(state));
  setHandler(releaseChangedSignal, () => {
    state.releaseStale = true;
  });

  // Decided once, here: patched() may answer differently later in a run that replays into live execution.
  const chart = chartSteps(state, patched('lean-chart-history'));
  chart.publishSearchAttributes();

  const continueWith = async (next: ChartState): Promise<never> => {
    // Shielded: after a Temporal cancel the root scope stays cancelled, and a cancellable wait would end the run.
    await CancellationScope.nonCancellable(() => condition(allHandlersFinished));
    return continueAsNew<typeof helmChartWorkflow>({ ref, state: next });
  };

  try {
    for (;;) {
      // Also woken by Temporal's suggestion: signals alone (a controller resyncing) grow an idle run's history.
      await condition(
        () =>
          state.deleteRequested ||
          state.retryRequest !== undefined ||
          wantsInstall(state) ||
          suspensionToReport(state) !== undefined ||
          dependenciesToReport(state) !== undefined ||
          state.releaseStale === true ||
          workflowInfo().continueAsNewSuggested,
      );
      if (state.deleteRequested) {
        await uninstall(chart, state);
        // A chart recreated under this name during the delete starts over in a fresh run.
        if (state.successor !== undefined) {
          const next = { ...initialState(ref, state.tuning), uid: state.successor.uid, desired: state.successor };
          return await continueWith(next);
        }
        return 'deleted';
      }
      const suspension = suspensionToReport(state);
      if (suspension !== undefined) await reportSuspension(chart, state, suspension);
      const dependencies = dependenciesToReport(state);
      if (dependencies !== undefined) await reportDependencies(chart, state, dependencies);
      if (state.retryRequest !== undefined) await acceptRetry(chart, state);
      else if (state.phase === 'Paused' && !state.paused) await unpausedBySpec(chart, state);
      if (wantsInstall(state)) await install(chart, state);
      if (state.releaseStale === true) {
        state.releaseStale = false;
        await recordRelease(chart);
      }
      if (workflowInfo().continueAsNewSuggested) return await continueWith(state);
    }
  } catch (err) {
    if (!isCancellation(err)) throw err;
    // The pause must find the Job to delete it.
    await CancellationScope.nonCancellable(() => untilJobCreated(chart, 'pause-waits-for-job-create'));
    await CancellationScope.nonCancellable(() => pause(chart, state));
    // A fresh run, so the chart can be cancelled again later.
    return await continueWith(state);
  }
}

/** A new desired state: a change of uid means the chart was recreated; during a delete it waits its turn. */
function acceptDesired(state: ChartState, desired: DesiredState): void {
  if (state.uid !== undefined && desired.uid !== state.uid) {
    if (state.deleteRequested) {
      state.successor = desired;
      return;
    }
    // The old chart vanished without a delete reaching us (its finalizer was removed by hand): start over.
    Object.assign(state, { ...initialState(state.ref, state.tuning), uid: desired.uid, desired });
    return;
  }
  state.uid = desired.uid;
  if (state.paused && state.desired !== undefined && desired.generation !== state.desired.generation)
    state.paused = false;
  state.desired = desired;
}
