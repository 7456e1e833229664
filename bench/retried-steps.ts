// What helmflow's log says of the steps that ran again (activities/retried.ts): the history keeps only a step's
// last attempt, and a retried timeout's failure carries none of the heartbeats of the attempt that timed out.

/** The fields of helmflow's "a step runs again" log line a bench reads. */
export interface RetriedLine {
  step?: string;
  lastHeartbeat?: unknown;
  startedAfterMs?: number;
}

export const RETRIED_MESSAGE = 'a step runs again';

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
 * Per step, the attempts the workflow histories started (each step scheduled, and each attempt after the first of
 * a retried one: "awaitJob attempt 2 (before: …)" → one more) beside the activity tasks of that type the worker's
 * core received (its `temporal_activity_task_received_total`). Fewer received than started: attempts lost before the
 * worker; as many: lost inside it.
 */
export function describeReceived(
  received: ReadonlyMap<string, number>,
  named: ReadonlyMap<string, number>,
  retried: ReadonlyMap<string, readonly string[]>,
): string[] {
  const started = new Map<string, number>();
  for (const [name, n] of named) if (name.startsWith('step ')) started.set(name.slice(5), n);
  for (const [kind, charts] of retried) {
    const match = /^(\S+) attempt (\d+)/.exec(kind);
    if (match === null) continue;
    const [, step = '?', attempt = '1'] = match;
    started.set(step, (started.get(step) ?? 0) + (Number(attempt) - 1) * charts.length);
  }
  return [...started].map(
    ([step, n]) =>
      `${step}: the histories started ${String(n)} attempts, the worker's core received ${String(received.get(step) ?? 0)}`,
  );
}
