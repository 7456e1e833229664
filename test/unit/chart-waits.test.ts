import { chartWaits, type ChartTimes } from '../../bench/chart-waits.js';

const chart = (created: string, conditions: [string, string, string][], name = 'c'): ChartTimes => ({
  metadata: { name, creationTimestamp: created },
  status: {
    conditions: conditions.map(([type, status, lastTransitionTime]) => ({ type, status, lastTransitionTime })),
  },
});

describe("the many-charts bench's waits per chart, from each chart's own conditions", () => {
  it('measures from creation to JobCreated=True and to Installed=True, sorted', () => {
    const waits = chartWaits([
      chart(
        '2026-12-05T10:00:00Z',
        [
          ['JobCreated', 'True', '2026-12-05T10:00:30Z'],
          ['Installed', 'True', '2026-12-05T10:00:41Z'],
        ],
        'slow',
      ),
      chart('2026-12-05T10:00:05Z', [
        ['JobCreated', 'True', '2026-12-05T10:00:07Z'],
        ['Installed', 'True', '2026-12-05T10:00:12Z'],
      ]),
    ]);
    expect(waits).toEqual({
      jobCreated: [2, 30],
      installed: [7, 41],
      firstTenthLongest: 41,
      slowest: { name: 'slow', createdMs: Date.parse('2026-12-05T10:00:00Z'), installed: 41 },
    });
  });

  it('leaves out a chart whose condition is not True or has no time', () => {
    const waits = chartWaits([
      chart('2026-12-05T10:00:00Z', [
        ['JobCreated', 'False', '2026-12-05T10:00:30Z'],
        ['Installed', 'True', ''],
      ]),
      { metadata: {} },
    ]);
    expect(waits).toEqual({ jobCreated: [], installed: [], firstTenthLongest: 0 });
  });

  it('finds the longest wait among the tenth of the charts created first', () => {
    const installedAfter = (created: number, wait: number) =>
      chart(new Date(created * 1000).toISOString(), [
        ['Installed', 'True', new Date((created + wait) * 1000).toISOString()],
      ]);
    // 20 charts: the first two created are the first tenth; the one created second waited longest of all.
    const charts = Array.from({ length: 18 }, (_, i) => installedAfter(100 + i, 50));
    charts.push(installedAfter(1, 10), installedAfter(2, 900));
    expect(chartWaits(charts).firstTenthLongest).toBe(900);
  });
});
