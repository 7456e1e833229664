import { seriesValue } from '../../bench/prometheus-text.js';

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
