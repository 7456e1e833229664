import { ApplicationFailure } from '@temporalio/common';

/**
 * A Kubernetes effect that retrying cannot fix (an invalid object, a forbidden create, an object of a derived name
 * that another owner holds). Thrown non-retryable, so the activity ends at once; the workflow reads `type` as the
 * Failed condition's reason and `message` as its message. The message names objects and quotes the apiserver; it
 * never carries values or Secret data, since it is written to Temporal history.
 */
export function permanentFailure(reason: string, message: string): ApplicationFailure {
  return ApplicationFailure.create({ type: reason, message, nonRetryable: true });
}
