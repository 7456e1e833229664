import type { Context } from '@temporalio/activity';

/**
 * How often a waiting step hands the SDK a heartbeat. The SDK's core sends at most one to Temporal per 0.8 × the
 * step's heartbeat timeout, with the latest details it was handed, so a step that hands one at least that often
 * reaches Temporal just as often as one that hands one at every look. Each hand-over costs the worker's main thread
 * (encoding, the SDK's heartbeat stream, the call into the core): a thousand activities looking once a second took
 * 11.2–14.6 s of CPU a minute handing one at every look, 8.0–9.2 s paced (bench/heartbeat-pace.ts).
 */
export const HEARTBEAT_PACE_MS = 5_000;

/**
 * A heartbeat for a step that looks again and again: the first look's is handed on at once, later ones once
 * `paceMs` has passed since the last handed on. Only for steps whose looks take no longer than a few seconds each,
 * so that paceMs plus one look stays inside the SDK's send interval (test/unit/job-slots.test.ts checks the slot
 * wait's).
 */
export function pacedHeartbeat(
  context: Pick<Context, 'heartbeat'>,
  paceMs = HEARTBEAT_PACE_MS,
  now: () => number = Date.now,
): (details: unknown) => void {
  let last: number | undefined;
  return (details) => {
    const at = now();
    if (last !== undefined && at - last < paceMs) return;
    last = at;
    context.heartbeat(details);
  };
}
