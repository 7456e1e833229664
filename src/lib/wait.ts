import { setTimeout as delay } from 'node:timers/promises';

/** Thrown by a condition to end a wait at once: what it waits for can no longer happen. */
export class WaitAborted extends Error {}

/**
 * Polls `condition` until it returns a value other than undefined/false, or fails after `timeoutMs` with the
 * description and the last error seen: every wait in helmflow has a deadline and says what it waited for.
 */
export async function waitFor<T>(
  description: string,
  condition: () => Promise<T | undefined | false> | T | undefined | false,
  { timeoutMs = 60_000, intervalMs = 250 }: { timeoutMs?: number; intervalMs?: number } = {},
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let lastError: unknown;
  for (;;) {
    try {
      const value = await condition();
      if (value !== undefined && value !== false) return value;
    } catch (err) {
      if (err instanceof WaitAborted) throw err;
      lastError = err;
    }
    if (Date.now() >= deadline) {
      const why = lastError instanceof Error ? `: last error: ${lastError.message}` : '';
      throw new Error(`timed out after ${timeoutMs} ms waiting for ${description}${why}`);
    }
    // A poll interval, not a synchronisation sleep: the loop is bounded by the deadline above.
    await delay(intervalMs);
  }
}
