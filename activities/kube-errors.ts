import { ApplicationFailure } from '@temporalio/common';
import { apiErrorOf, classifyApiError } from '../src/kube/api-errors.js';
import { permanentFailure } from './failures.js';

/**
 * Runs one activity and classifies what it throws, once for every activity: a permanent API error becomes
 * permanentFailure (non-retryable, the reason as its type, the apiserver's message, which names the object);
 * anything else is left to Temporal's retry with backoff.
 */
export async function classifyingErrors<T>(what: string, run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (err) {
    throw classified(what, err);
  }
}

export function classified(what: string, err: unknown): unknown {
  if (err instanceof ApplicationFailure) return err;
  const error = apiErrorOf(err);
  const verdict = classifyApiError(error);
  if (verdict.kind === 'transient') return err;
  return permanentFailure(verdict.reason, `${what}: ${error.message}`);
}
