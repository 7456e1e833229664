/**
 * What follows an install attempt, as data: the failure-policy table. Pure (no Temporal API), so it is
 * table-tested; install.ts applies a decision in the order its fields are listed.
 */
import type { AttemptResult } from './attempt.js';
import { reinstallBackoffSeconds } from './backoff.js';
import type { DesiredState, Phase } from './contract.js';
import type { ChartState } from './state.js';

/** An attempt's end as the install loop sees it: the attempt's own result, or stopped because it was superseded. */
export type AttemptEnd = AttemptResult | { kind: 'interrupted' };

/**
 * The patches that guard forgetting the installed digest: a run recorded before one kept it, and must replay so.
 * Each is asked (and its marker recorded) only where the decision names it.
 */
export type ForgetPatch = 'reinstall-after-interrupted-attempt' | 'reinstall-after-failed-change';

export interface AttemptDecision {
  /** State to set first. */
  set: Partial<Pick<ChartState, 'installedDigest' | 'failures' | 'halted' | 'lastFailure'>>;
  /**
   * Then forget the installed digest, where the patch allows: the attempt's Job may have changed the release, so
   * the installed spec is no longer known to be what runs, and a desired state changed back to it installs again.
   */
  forget?: ForgetPatch;
  /** Then the phase to show; `settled`: Pending or Installed as the installed digest says, if still Installing. */
  phase: Phase | 'settled';
  /** Then the loop ends, or backs off (deleting the failed Job, if any) before the next attempt. */
  then: 'return' | { backoffSeconds: number; deleteJob: string | undefined };
}

export function afterAttempt(
  s: Pick<ChartState, 'installedDigest' | 'failures' | 'tuning'>,
  desired: Pick<DesiredState, 'digest' | 'generation' | 'failurePolicy'>,
  end: AttemptEnd,
): AttemptDecision {
  const installed = s.installedDigest !== undefined;
  const haltUntil = (until: 'generation' | 'digest') => ({
    digest: desired.digest,
    generation: desired.generation,
    until,
  });
  switch (end.kind) {
    case 'interrupted':
      return {
        set: {},
        ...(installed ? { forget: 'reinstall-after-interrupted-attempt' } : {}),
        phase: 'settled',
        then: 'return',
      };
    case 'gone':
      // A chart gone under this uid waits for its next desired state (a delete, or a recreated chart's new uid)
      // instead of inspecting it again at once, forever.
      return { set: { halted: haltUntil('digest') }, phase: 'settled', then: 'return' };
    case 'succeeded':
      // What was asked is converged. The Job may carry a newer digest (it is built from a fresh read): the
      // controller signals that one too, and helm upgrade --install reruns harmlessly.
      return {
        set: { installedDigest: desired.digest, failures: 0, halted: undefined, lastFailure: undefined },
        phase: 'Installed',
        then: 'return',
      };
    case 'refused':
    case 'failed': {
      // The chart now says Failed; a state changed back to the installed one must install again and say so.
      const failed = { lastFailure: { reason: end.reason, digest: desired.digest } };
      const forget = installed ? { forget: 'reinstall-after-failed-change' as const } : {};
      if (end.kind === 'refused') {
        return { set: { ...failed, halted: haltUntil('digest') }, ...forget, phase: 'Failed', then: 'return' };
      }
      const failures = s.failures + 1;
      const hold = holdAfterFailure(desired.failurePolicy);
      if (hold !== 'backoff') {
        // The failed Job and its logs stay for inspection until the spec (abort) or anything (retry) changes.
        return { set: { ...failed, failures, halted: haltUntil(hold) }, ...forget, phase: 'Failed', then: 'return' };
      }
      const backoffSeconds = reinstallBackoffSeconds(failures, s.tuning);
      return {
        set: { ...failed, failures },
        ...forget,
        phase: 'Backoff',
        then: { backoffSeconds, deleteJob: end.jobName },
      };
    }
  }
}

/**
 * What a failed attempt leads to under the chart's failurePolicy: hold until the spec changes (abort), until
 * anything in the desired state changes (retry), or back off and reinstall. The same for a failed Job and for a
 * step the apiserver refused for good.
 */
export function holdAfterFailure(policy: DesiredState['failurePolicy']): 'generation' | 'digest' | 'backoff' {
  if (policy === 'abort') return 'generation';
  if (policy === 'retry') return 'digest';
  return 'backoff';
}
