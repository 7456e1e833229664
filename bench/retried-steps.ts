// What helmflow's log says of the steps that ran again (activities/retried.ts): the history keeps only a step's
// last attempt, and a retried timeout's failure carries none of the heartbeats of the attempt that timed out.
import type { RetriedStep } from '../activities/retried.js';

/** The fields of helmflow's RETRIED_MESSAGE log line a bench reads, as the bench parsed it. */
export type RetriedLine = Partial<Pick<RetriedStep, 'step' | 'lastHeartbeat' | 'startedAfterMs'>>;

/**
 * The lines grouped by step and by what the attempt before last said ("none" when it sent no heartbeat), each
 * with its count and the longest wait from scheduling to start: "prepareInstall, last heartbeat none: 12 (started
 * at most 0.4 s after scheduled)".
 */
export function describeRetried(lines: readonly RetriedLine[]): string[] {
  const groups = new Map<string, { count: number; longestMs: number }>();
  for (const line of lines) {
    const said = line.lastHeartbeat === undefined ? 'none' : JSON.stringify(line.lastHeartbeat);
    const key = `${line.step ?? '?'}, last heartbeat ${said}`;
    const group = groups.get(key) ?? { count: 0, longestMs: 0 };
    group.count += 1;
    group.longestMs = Math.max(group.longestMs, line.startedAfterMs ?? 0);
    groups.set(key, group);
  }
  return [...groups]
    .sort((a, b) => b[1].count - a[1].count)
    .map(
      ([key, { count, longestMs }]) =>
        `${key}: ${String(count)} (started at most ${(longestMs / 1000).toFixed(1)} s after scheduled)`,
    );
}

/**
 * Per step, the attempts the workflow histories started (countAttemptsStarted, bench/history.ts) beside the activity
 * tasks of that type the worker's core received (its `temporal_activity_task_received_total`). Fewer received than
 * started: attempts lost before the worker; as many: lost inside it.
 */
export function describeReceived(
  received: ReadonlyMap<string, number>,
  started: ReadonlyMap<string, number>,
): string[] {
  return [...started].map(
    ([step, n]) =>
      `${step}: the histories started ${String(n)} attempts, the worker's core received ${String(received.get(step) ?? 0)}`,
  );
}
