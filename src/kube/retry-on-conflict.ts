import { isConflict } from './client.js';

/** How many read-then-write rounds a step makes before it leaves the rest to Temporal's retry (with backoff). */
export const CONFLICT_TRIES = 5;

/**
 * Runs `round` (a fresh read, then a write guarded by what it read: a resourceVersion, or a create) again each time
 * the write meets a conflict, at most CONFLICT_TRIES times; then throws, so the step is retried later rather than
 * spinning against a writer that keeps winning. Any other error ends it at once.
 */
export async function retryOnConflict<T>(subject: string, round: () => Promise<T>): Promise<T> {
  for (let tries = 0; tries < CONFLICT_TRIES; tries++) {
    try {
      return await round();
    } catch (err) {
      if (!isConflict(err)) throw err;
    }
  }
  throw new Error(`${subject} kept changing; will retry`);
}
