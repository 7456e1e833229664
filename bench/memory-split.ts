// What bench/many-charts.ts says of where helmflow's memory is at its peak, from prom-client's default metrics on
// helmflow's /metrics: the main thread's JavaScript heap (activities, watch caches, the controller) and the memory
// V8 keeps outside it (Buffers); the rest of the resident memory is the process's native part (the Temporal core
// SDK, compiled code) and the worker thread that runs the chart workflows, whose heap these metrics do not see.
// Pure: table-tested in test/unit/memory-split.test.ts.
import { seriesValue } from './prometheus-text.js';

export interface MemorySplit {
  residentBytes: number;
  /** The main thread's V8 heap as reserved, and the part of it in use. */
  heapTotalBytes: number;
  heapUsedBytes: number;
  /** Memory V8 accounts for outside its heap (Buffers, ArrayBuffers). */
  externalBytes: number;
  /** helmflow's malloc_trim calls so far (src/app/malloc-trim.ts), when its /metrics has them. */
  trims?: MallocTrims;
}

export interface MallocTrims {
  count: number;
  seconds: number;
  /** The bound of the smallest histogram bucket that holds every call (the longest took at most this); 0 for none. */
  longestAtMostSeconds: number;
  returnedBytes: number;
}

const TRIM_DURATION = 'helmflow_malloc_trim_duration_seconds';

/** The malloc_trim figures of one scrape; undefined when one is missing (a helmflow from before them). */
export function mallocTrims(metrics: string): MallocTrims | undefined {
  const count = seriesValue(metrics, `${TRIM_DURATION}_count`);
  const seconds = seriesValue(metrics, `${TRIM_DURATION}_sum`);
  const returnedBytes = seriesValue(metrics, 'helmflow_malloc_trim_returned_bytes_total');
  if (count === undefined || seconds === undefined || returnedBytes === undefined) return undefined;
  const bounds = [...metrics.matchAll(new RegExp(`^${TRIM_DURATION}_bucket\\{le="([^"]+)"\\} (\\S+)$`, 'gm'))]
    .filter(([, , calls]) => Number(calls) === count)
    .map(([, le]) => (le === '+Inf' ? Infinity : Number(le)));
  return { count, seconds, longestAtMostSeconds: count === 0 ? 0 : Math.min(...bounds), returnedBytes };
}

/** The split in one scrape of a prom-client registry with default metrics; undefined when one is missing. */
export function memorySplit(metrics: string): MemorySplit | undefined {
  const [residentBytes, heapTotalBytes, heapUsedBytes, externalBytes] = [
    'process_resident_memory_bytes',
    'nodejs_heap_size_total_bytes',
    'nodejs_heap_size_used_bytes',
    'nodejs_external_memory_bytes',
  ].map((name) => seriesValue(metrics, name));
  if (residentBytes === undefined || heapTotalBytes === undefined) return undefined;
  if (heapUsedBytes === undefined || externalBytes === undefined) return undefined;
  const trims = mallocTrims(metrics);
  return { residentBytes, heapTotalBytes, heapUsedBytes, externalBytes, ...(trims === undefined ? {} : { trims }) };
}
