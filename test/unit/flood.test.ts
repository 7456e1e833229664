import { countsBetween, describeCounts, longestSilence, operationCounts, sentBy } from '../../bench/flood.js';

const t0 = 1_000_000;
const at = (...seconds: number[]) => seconds.map((s) => t0 + s * 1000);

describe("the people-first bench's account of a resync flood", () => {
  it.each<[string, number[], number[], number[]]>([
    ['none sent', [], [5, 10], [0, 0]],
    ['a burst, then nothing', at(1, 2, 3, 4), [5, 10, 20], [4, 4, 4]],
    ['a steady trickle', at(2, 4, 6, 8, 10), [5, 10], [2, 5]],
    ['a signal on the mark counts for it', at(5), [5], [1]],
  ])('signals sent by each mark: %s', (_, times, marks, sent) => {
    expect(sentBy(times, t0, marks).map((m) => m.sent)).toEqual(sent);
  });

  it.each<[string, number[], number, { startMs: number; ms: number }]>([
    ['nothing sent: the whole window', [], 10, { startMs: 0, ms: 10_000 }],
    ['a burst then a stall: the stall', at(1, 2, 3), 60, { startMs: 3_000, ms: 57_000 }],
    ['a gap in the middle', at(1, 2, 30, 31), 32, { startMs: 2_000, ms: 28_000 }],
    ['a slow start', at(20, 21), 22, { startMs: 0, ms: 20_000 }],
    ['unsorted times', at(30, 1, 31, 2), 32, { startMs: 2_000, ms: 28_000 }],
    ['times outside the window are left out', [t0 - 5_000, ...at(4), t0 + 99_000], 10, { startMs: 4_000, ms: 6_000 }],
  ])('the longest silence: %s', (_, times, untilSecond, silence) => {
    expect(longestSilence(times, t0, t0 + untilSecond * 1000)).toEqual(silence);
  });

  const op = 'SignalWithStartWorkflowExecution';
  const scrape = (requests: number, exhausted: number, latencySum: number) =>
    [
      '# HELP service_requests service_requests counter',
      `service_requests{namespace="default",operation="${op}",service_name="frontend"} ${String(requests)}`,
      `service_requests{namespace="default",operation="${op}",service_name="history"} 999`,
      `service_requests{namespace="default",operation="StartWorkflowExecution",service_name="frontend"} 7`,
      `service_error_with_type{error_type="serviceerror_ResourceExhausted",operation="${op}",service_name="frontend"} ${String(exhausted)}`,
      `service_errors_resource_exhausted{operation="${op}",resource_exhausted_cause="BusyWorkflow",service_name="frontend"} ${String(exhausted)}`,
      `service_latency_bucket{operation="${op}",service_name="frontend",le="0.1"} 3`,
      `service_latency_sum{operation="${op}",service_name="frontend"} ${String(latencySum)}`,
      `service_latency_count{operation="${op}",service_name="frontend"} ${String(requests)}`,
      `service_latency_userlatency_sum{operation="${op}",service_name="frontend"} 1000`,
    ].join('\n');

  it("counts one operation at the frontend: requests, errors by type and cause, latency; not history's", () => {
    expect(operationCounts(scrape(10, 2, 4), op)).toEqual({
      requests: 10,
      errors: { serviceerror_ResourceExhausted: 2 },
      exhausted: { BusyWorkflow: 2 },
      latencySeconds: 4,
      latencyCount: 10,
    });
  });

  it.each<[string, string, Partial<ReturnType<typeof operationCounts>>]>([
    ['counters with _total', `service_requests_total{operation="${op}"} 5`, { requests: 5 }],
    [
      'latency in milliseconds',
      `service_latency_milliseconds_sum{operation="${op}"} 1500\nservice_latency_milliseconds_count{operation="${op}"} 3`,
      { latencySeconds: 1.5, latencyCount: 3 },
    ],
    ['another operation', `service_requests{operation="QueryWorkflow"} 5`, { requests: 0 }],
    ['a value that is not a number', `service_requests{operation="${op}"} NaN`, { requests: 0 }],
  ])('reads metric names as a Temporal server may spell them: %s', (_, text, expected) => {
    expect(operationCounts(text, op)).toMatchObject(expected);
  });

  it('tells what happened between two scrapes, and says it in one line', () => {
    const between = countsBetween(operationCounts(scrape(10, 2, 4), op), operationCounts(scrape(30, 12, 14), op));
    expect(between).toEqual({
      requests: 20,
      errors: { serviceerror_ResourceExhausted: 10 },
      exhausted: { BusyWorkflow: 10 },
      latencySeconds: 10,
      latencyCount: 20,
    });
    expect(describeCounts(between)).toBe(
      '20 requests, mean 0.50 s at the server; errors: serviceerror_ResourceExhausted×10 (exhausted: BusyWorkflow×10)',
    );
    expect(describeCounts(countsBetween(between, between))).toBe('0 requests; no errors');
  });
});
