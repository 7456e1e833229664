// What bench/people-first.ts says of a restart's resync flood beyond its end: how the desired-state signals went
// over time (a steady trickle and a burst followed by a silence are different faults with the same average), and
// what the Temporal frontend answered to them (the client retries RESOURCE_EXHAUSTED and UNAVAILABLE without a
// word, after 1.7 s and 0.17 s at first). Pure: table-tested in test/unit/flood.test.ts.

/** How many of `times` (ms since the epoch) fall within each mark, counted in seconds after `from`. */
export function sentBy(
  times: readonly number[],
  from: number,
  marks: readonly number[],
): { second: number; sent: number }[] {
  return marks.map((second) => ({ second, sent: times.filter((t) => t - from <= second * 1000).length }));
}

/** The longest stretch between `from` and `until` without any of `times`, and where it began (ms after `from`). */
export function longestSilence(times: readonly number[], from: number, until: number): { startMs: number; ms: number } {
  const edges = [from, ...[...times].filter((t) => t >= from && t <= until).sort((a, b) => a - b), until];
  let longest = { startMs: 0, ms: 0 };
  for (let i = 1; i < edges.length; i++) {
    const start = edges[i - 1] ?? from;
    const ms = (edges[i] ?? until) - start;
    if (ms > longest.ms) longest = { startMs: start - from, ms };
  }
  return longest;
}

/** One operation as a Temporal service counts it in its Prometheus metrics. */
export interface OperationCounts {
  requests: number;
  /** Errors by gRPC error type (`serviceerror_ResourceExhausted`, …). */
  errors: Record<string, number>;
  /** RESOURCE_EXHAUSTED answers by cause (`BusyWorkflow`, `RpsLimit`, …). */
  exhausted: Record<string, number>;
  /** Server-side latency: the sum, in seconds, over `latencyCount` requests. */
  latencySeconds: number;
  latencyCount: number;
}

const empty = (): OperationCounts => ({ requests: 0, errors: {}, exhausted: {}, latencySeconds: 0, latencyCount: 0 });

function labelsOf(text: string): Record<string, string> {
  const labels: Record<string, string> = {};
  for (const [, name = '', value = ''] of text.matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g)) labels[name] = value;
  return labels;
}

const add = (into: Record<string, number>, key: string | undefined, value: number) => {
  const name = key ?? 'unknown';
  into[name] = (into[name] ?? 0) + value;
};

/**
 * `operation`'s counters in a Temporal server's Prometheus text, as `service` (default the frontend, the service
 * a client calls) reports them; a line without a service_name label counts too. Counter names are accepted with
 * or without the `_total` suffix, latency in seconds or milliseconds.
 */
export function operationCounts(text: string, operation: string, service = 'frontend'): OperationCounts {
  const counts = empty();
  for (const line of text.split('\n')) {
    const match = /^([a-zA-Z_:][\w:]*)(?:\{(.*)\})?\s+(\S+)/.exec(line);
    if (match === null) continue;
    const [, name = '', labelText = '', valueText = ''] = match;
    const labels = labelsOf(labelText);
    if (labels.operation !== operation) continue;
    if (labels.service_name !== undefined && labels.service_name !== service) continue;
    const value = Number(valueText);
    if (!Number.isFinite(value)) continue;
    const base = name.replace(/_total$/, '');
    const latency = /^service_latency(?:_(seconds|milliseconds))?_(sum|count)$/.exec(name);
    if (base === 'service_requests') counts.requests += value;
    else if (base === 'service_error_with_type') add(counts.errors, labels.error_type, value);
    else if (base === 'service_errors_resource_exhausted')
      add(counts.exhausted, labels.resource_exhausted_cause, value);
    else if (latency?.[2] === 'count') counts.latencyCount += value;
    else if (latency?.[2] === 'sum') counts.latencySeconds += latency[1] === 'milliseconds' ? value / 1000 : value;
  }
  return counts;
}

/** What was counted between two scrapes of the same server. */
export function countsBetween(before: OperationCounts, after: OperationCounts): OperationCounts {
  const minus = (a: Record<string, number>, b: Record<string, number>) =>
    Object.fromEntries(
      Object.entries(a)
        .map(([key, value]): [string, number] => [key, value - (b[key] ?? 0)])
        .filter(([, value]) => value > 0),
    );
  return {
    requests: after.requests - before.requests,
    errors: minus(after.errors, before.errors),
    exhausted: minus(after.exhausted, before.exhausted),
    latencySeconds: after.latencySeconds - before.latencySeconds,
    latencyCount: after.latencyCount - before.latencyCount,
  };
}

/** "160 requests, mean 0.12 s at the server; errors: serviceerror_ResourceExhausted×12 (exhausted: BusyWorkflow×12)". */
export function describeCounts(counts: OperationCounts): string {
  const list = (record: Record<string, number>) =>
    Object.entries(record)
      .map(([key, n]) => `${key}×${String(n)}`)
      .join(', ');
  const mean =
    counts.latencyCount > 0 ? `, mean ${(counts.latencySeconds / counts.latencyCount).toFixed(2)} s at the server` : '';
  const errors = list(counts.errors);
  const exhausted = list(counts.exhausted);
  if (errors === '' && exhausted === '') return `${String(counts.requests)} requests${mean}; no errors`;
  const causes = exhausted === '' ? '' : ` (exhausted: ${exhausted})`;
  return `${String(counts.requests)} requests${mean}; errors: ${errors === '' ? 'none by type' : errors}${causes}`;
}
