import { ActivityFailure, ApplicationFailure, CancelledFailure, TimeoutFailure } from '@temporalio/workflow';
import { FailedCondition } from '../src/api/reasons.js';

/** A step that cannot succeed by retrying: the Failed condition's reason and the apiserver's message. */
export interface StepFailure {
  reason: string;
  message: string;
}

/**
 * The permanent failure an activity threw (activities/failures.ts permanentFailure: non-retryable, reason as
 * type), or undefined for anything else — a cancellation, a timeout, a workflow bug — which the caller rethrows.
 */
export function permanentFailureOf(err: unknown): StepFailure | undefined {
  if (!(err instanceof ActivityFailure)) return undefined;
  const cause = err.cause;
  if (!(cause instanceof ApplicationFailure) || !cause.nonRetryable) return undefined;
  return { reason: cause.type ?? 'Failed', message: cause.message };
}

/**
 * Why a bounded step ended without success: a permanent failure, or its schedule-to-close bound ran out while a
 * transient error kept it retrying. Undefined for a cancellation, which the caller rethrows.
 */
export function boundedStepFailureOf(err: unknown): StepFailure | undefined {
  const permanent = permanentFailureOf(err);
  if (permanent !== undefined) return permanent;
  if (!(err instanceof ActivityFailure) || err.cause instanceof CancelledFailure) return undefined;
  const last = err.cause?.message ?? err.message;
  if (err.retryState === 'TIMEOUT' || err.cause instanceof TimeoutFailure) {
    return {
      reason: FailedCondition.stepTimedOut,
      message: `kept failing until its bound ran out; last error: ${last}`,
    };
  }
  return { reason: FailedCondition.stepFailed, message: last };
}
