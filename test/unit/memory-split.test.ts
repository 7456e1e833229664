import { memorySplit } from '../../bench/memory-split.js';

describe("the many-charts bench's split of helmflow's memory", () => {
  const scrape = [
    '# HELP process_resident_memory_bytes Resident memory size in bytes.',
    'process_resident_memory_bytes 400000000',
    'nodejs_heap_size_total_bytes 150000000',
    'nodejs_heap_size_used_bytes 120000000',
    'nodejs_external_memory_bytes 9000000',
    'nodejs_heap_space_size_total_bytes{space="old"} 1',
  ].join('\n');

  it('reads the resident memory, the heap and what V8 holds outside it', () => {
    expect(memorySplit(scrape)).toEqual({
      residentBytes: 400_000_000,
      heapTotalBytes: 150_000_000,
      heapUsedBytes: 120_000_000,
      externalBytes: 9_000_000,
    });
  });

  it("adds helmflow's malloc_trim figures when the scrape has them, with the bound of the longest call", () => {
    const trimmed = [
      scrape,
      'helmflow_malloc_trim_duration_seconds_bucket{le="0.1"} 1',
      'helmflow_malloc_trim_duration_seconds_bucket{le="0.25"} 2',
      'helmflow_malloc_trim_duration_seconds_bucket{le="0.5"} 3',
      'helmflow_malloc_trim_duration_seconds_bucket{le="+Inf"} 3',
      'helmflow_malloc_trim_duration_seconds_sum 0.42',
      'helmflow_malloc_trim_duration_seconds_count 3',
      'helmflow_malloc_trim_returned_bytes_total 70000000',
    ].join('\n');
    expect(memorySplit(trimmed)?.trims).toEqual({
      count: 3,
      seconds: 0.42,
      longestAtMostSeconds: 0.5,
      returnedBytes: 70_000_000,
    });
    expect(memorySplit(`${scrape}\nhelmflow_malloc_trim_duration_seconds_count 3`)?.trims).toBeUndefined();
  });

  it('is undefined when the registry has no default metrics', () => {
    expect(memorySplit('helmflow_signals_total{signal="desired"} 3')).toBeUndefined();
  });
});
