/**
 * The install loop: attempts for the current desired state until one settles it, the failure policy stops it,
 * or it is superseded (a new desired state, a delete, a retry). What follows each attempt is after-attempt.ts.
 */
import { CancellationScope, condition, isCancellation, patched, workflowInfo } from '@temporalio/workflow';
import { afterAttempt, type AttemptDecision } from './after-attempt.js';
import { attempt } from './attempt.js';
import { supersedes, type ChartState } from './state.js';
import { activities, waitingCall, type ChartSteps } from './steps.js';

/**
 * Waits while a step creates the Job (attempt.ts, creatingJob), so the next step finds the Job to delete or
 * replace: a step cancelled mid-call goes on on its worker. `patch` is asked only when a Job is being created, so
 * runs recorded before it replay, and a plain install pays no marker.
 */
export async function untilJobCreated(chart: ChartSteps, patch: string): Promise<void> {
  if (chart.creatingJob && patched(patch)) await condition(() => !chart.creatingJob);
}

/** Runs `work` until it ends or the chart's desired state moves past `digest`; then cancels it. */
async function interruptible<T>(
  chart: ChartSteps,
  state: ChartState,
  digest: string,
  work: () => Promise<T>,
): Promise<T | 'interrupted'> {
  const workScope = new CancellationScope();
  const watchScope = new CancellationScope();
  const running = workScope.run(work);
  const superseded = watchScope.run(() => condition(() => supersedes(state, digest)));
  superseded.catch(() => undefined);
  try {
    const first = await Promise.race([
      running.then((value) => ({ value })),
      superseded.then(() => 'superseded' as const),
    ]);
    if (first !== 'superseded') return first.value;
    // The next step (a delete's, or the next attempt's) must find the Job: its install could outlive an uninstall.
    await untilJobCreated(chart, 'job-create-ends-before-cancel');
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

export async function install(chart: ChartSteps, state: ChartState): Promise<void> {
  for (;;) {
    const desired = state.desired;
    // A suspend or a dependency hold that arrived during a backoff stops the loop; runs recorded before either
    // existed never carry one.
    if (desired === undefined || desired.suspended === true || desired.dependencies !== undefined) return;
    state.attempt += 1;
    chart.setPhase('Installing');
    const result = await interruptible(chart, state, desired.digest, () => attempt(chart, state));
    const decision = afterAttempt(state, desired, result === 'interrupted' ? { kind: 'interrupted' } : result);
    apply(chart, state, decision);
    if (decision.then === 'return') return;
    const { backoffSeconds: seconds, deleteJob } = decision.then;
    if (deleteJob !== undefined) {
      await activities.deleteJob.executeWithOptions(
        { ...waitingCall, summary: `Delete failed Job ${deleteJob} (failurePolicy reinstall)` },
        [chart.ref, deleteJob],
      );
    }
    const superseded = await condition(() => supersedes(state, desired.digest), `${seconds} seconds`, {
      summary: `Back off ${seconds}s before reinstalling ${chart.ref.name} (failure ${state.failures})`,
    });
    // A chart that keeps failing stays in this loop: hand over to a fresh run between attempts when suggested.
    if (superseded || workflowInfo().continueAsNewSuggested) return;
  }
}

/** Applies a decision's state, forgetting and phase, in that order (the patch marker before the phase's upsert). */
function apply(chart: ChartSteps, state: ChartState, decision: AttemptDecision): void {
  Object.assign(state, decision.set);
  if (decision.forget !== undefined && patched(decision.forget)) state.installedDigest = undefined;
  if (decision.phase !== 'settled') chart.setPhase(decision.phase);
  else if (state.phase === 'Installing') chart.setPhase(state.installedDigest === undefined ? 'Pending' : 'Installed');
}
