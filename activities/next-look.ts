import { setTimeout as delay } from 'node:timers/promises';
import type { Context } from '@temporalio/activity';

/**
 * Waits `ms` between two looks of a waiting step, and ends at once, with the activity's CancelledFailure, when the
 * activity is cancelled: Context.sleep's contract. Context.sleep itself attaches a handler to the activity's
 * `cancelled` promise at each call, and that promise lives as long as the activity, so a wait that looks once a
 * second kept one more handler (with its timer) every second: about 1.3 KiB per look (bench/waiting-looks.ts), or
 * some 400 KiB for each chart that waits five minutes for a Job slot. node's timer drops its abort listener once
 * it fires.
 */
export async function nextLook(context: Context, ms: number): Promise<void> {
  try {
    await delay(ms, undefined, { signal: context.cancellationSignal });
  } catch (err) {
    // The cancellation aborts the signal and rejects `cancelled` together: rethrow the SDK's own failure.
    if (context.cancellationSignal.aborted) await context.cancelled;
    throw err;
  }
}
