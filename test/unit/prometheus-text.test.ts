import { seriesValue, sumsByLabel } from '../../bench/prometheus-text.js';

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
