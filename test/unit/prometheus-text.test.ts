import { nonZeroSeries, seriesValue, sumsByLabel } from '../../bench/prometheus-text.js';

describe('one series of a Prometheus text scrape', () => {
  const scrape = [
    '# HELP helmflow_signals_total Signals sent.',
    'helmflow_signals_total{signal="desired"} 1001',
    'helmflow_signals_total{signal="delete"} 2',
    'helmflow_resync_sweeps_total 3',
    'helmflow_resync_sweeps_total_created 1.7e9',
  ].join('\n');

  it.each<[string, number | undefined]>([
    ['helmflow_signals_total{signal="desired"}', 1001],
    ['helmflow_signals_total{signal="delete"}', 2],
    ['helmflow_resync_sweeps_total', 3],
    ['helmflow_signals_total{signal="retry"}', undefined],
    ['helmflow_signals_total', undefined],
  ])('%s', (series, value) => {
    expect(seriesValue(scrape, series)).toBe(value);
  });
});

describe("a metric's series summed by one label", () => {
  it('sums the series by the label, leaving out series without it and other metrics', () => {
    const scrape = [
      '# TYPE temporal_activity_task_received_total counter',
      'temporal_activity_task_received_total{activity_type="awaitJob",eager="false",task_queue="q"} 4',
      'temporal_activity_task_received_total{task_queue="other",activity_type="awaitJob"} 1',
      'temporal_activity_task_received_total{activity_type="prepareInstall",task_queue="q"} 7',
      'temporal_activity_task_received_total{task_queue="q"} 9',
      'temporal_activity_task_received_total_created{activity_type="awaitJob"} 1.7e9',
      'temporal_activity_execution_failed_total{activity_type="awaitJob",task_queue="q"} 5',
    ].join('\n');
    expect(sumsByLabel(scrape, 'temporal_activity_task_received_total', 'activity_type')).toEqual(
      new Map([
        ['awaitJob', 5],
        ['prepareInstall', 7],
      ]),
    );
  });
});

describe('the series of some metrics that are not zero', () => {
  it('keeps those of the named metrics whose value is not zero, labels as written', () => {
    const scrape = [
      '# HELP temporal_long_request_failure_total Failed long polls.',
      'temporal_long_request_failure_total{operation="PollActivityTaskQueue",status_code="DEADLINE_EXCEEDED"} 3',
      'temporal_long_request_failure_total{operation="PollWorkflowTaskQueue",status_code="CANCELLED"} 0',
      'temporal_long_request_failure_total_created{operation="PollActivityTaskQueue"} 1.7e9',
      'temporal_request_failure_total 2',
      'temporal_request_total{operation="RespondActivityTaskCompleted"} 900',
    ].join('\n');
    expect(nonZeroSeries(scrape, ['temporal_long_request_failure_total', 'temporal_request_failure_total'])).toEqual([
      'temporal_long_request_failure_total{operation="PollActivityTaskQueue",status_code="DEADLINE_EXCEEDED"} 3',
      'temporal_request_failure_total 2',
    ]);
  });
});
