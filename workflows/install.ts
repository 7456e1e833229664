/**
 * The install loop: attempts for the current desired state until one settles it, the failure policy stops it,
 * or it is superseded (a new desired state, a delete, a retry). What follows each attempt is after-attempt.ts.
 */
import { CancellationScope, condition, isCancellation, patched, workflowInfo } from '@temporalio/workflow';
import { afterAttempt, type AttemptDecision } from './after-attempt.js';
import { attempt } from './attempt.js';
import { supersedes, type ChartState } from './state.js';
import { act, waitingCall, type ChartSteps } from './steps.js';

/**
 * Waits while a step creates the Job (attempt.ts, creatingJob), so the next step finds the Job to delete or
 * replace: a step cancelled mid-call goes on on its worker. `patch` is asked only when a Job is being created, so
 * runs recorded before it replay, and a plain install pays no marker.
 */
export async function untilJobCreated(c: ChartSteps, patch: string): Promise<void> {
  if (c.creatingJob && patched(patch)) await condition(() => !c.creatingJob);
}

/** Runs `work` until it ends or the chart's desired state moves past `digest`; then cancels it. */
async function interruptible<T>(
  c: ChartSteps,
  s: ChartState,
  digest: string,
  work: () => Promise<T>,
): Promise<T | 'interrupted'> {
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
    await untilJobCreated(c, 'job-create-ends-before-cancel');
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

export async function install(c: ChartSteps, s: ChartState): Promise<void> {
  for (;;) {
    const desired = s.desired;
    // A suspend or a dependency hold that arrived during a backoff stops the loop; runs recorded before either
    // existed never carry one.
    if (desired === undefined || desired.suspended === true || desired.dependencies !== undefined) return;
    s.attempt += 1;
    c.setPhase('Installing');
    const result = await interruptible(c, s, desired.digest, () => attempt(c, s));
    const decision = afterAttempt(s, desired, result === 'interrupted' ? { kind: 'interrupted' } : result);
    apply(c, s, decision);
    if (decision.then === 'return') return;
    const { backoffSeconds: seconds, deleteJob } = decision.then;
    if (deleteJob !== undefined) {
      await act.deleteJob.executeWithOptions(
        { ...waitingCall, summary: `Delete failed Job ${deleteJob} (failurePolicy reinstall)` },
        [c.ref, deleteJob],
      );
    }
    const superseded = await condition(() => supersedes(s, desired.digest), `${seconds} seconds`, {
      summary: `Back off ${seconds}s before reinstalling ${c.ref.name} (failure ${s.failures})`,
    });
    // A chart that keeps failing stays in this loop: hand over to a fresh run between attempts when suggested.
    if (superseded || workflowInfo().continueAsNewSuggested) return;
  }
}

/** Applies a decision's state, forgetting and phase, in that order (the patch marker before the phase's upsert). */
function apply(c: ChartSteps, s: ChartState, decision: AttemptDecision): void {
  Object.assign(s, decision.set);
  if (decision.forget !== undefined && patched(decision.forget)) s.installedDigest = undefined;
  if (decision.phase !== 'settled') c.setPhase(decision.phase);
  else if (s.phase === 'Installing') c.setPhase(s.installedDigest === undefined ? 'Pending' : 'Installed');
}
