// How long each chart waited, read from the HelmCharts themselves once all are installed: from its creation to its
// JobCreated=True and to its Installed=True condition (each condition's lastTransitionTime, whole seconds). Unlike
// the bench's own polling, this does not depend on when the bench looked, nor on kubectl's apply still running.
// Pure: table-tested in test/unit/chart-waits.test.ts.

export interface ChartTimes {
  metadata: { name?: string; creationTimestamp?: string };
  status?: { conditions?: { type: string; status: string; lastTransitionTime?: string }[] };
}

export interface ChartWaits {
  /** Per chart, seconds from its creation to its install Job's creation, sorted. */
  jobCreated: number[];
  /** Per chart, seconds from its creation to Installed, sorted. */
  installed: number[];
  /**
   * Of the tenth of the charts created first, the longest creation to Installed: charts served in the order they
   * came are all installed early; served by chance, some of them wait until the end.
   */
  firstTenthLongest: number;
  /** The chart with the longest creation to Installed, and when it was created (ms since the epoch). */
  slowest?: { name: string; createdMs: number; installed: number };
}

function secondsTo(chart: ChartTimes, type: string): number | undefined {
  const created = Date.parse(chart.metadata.creationTimestamp ?? '');
  const condition = chart.status?.conditions?.find((c) => c.type === type && c.status === 'True');
  const at = Date.parse(condition?.lastTransitionTime ?? '');
  return Number.isNaN(created) || Number.isNaN(at) ? undefined : (at - created) / 1000;
}

/** The waits of every chart that has both times; a chart without one is left out. */
export function chartWaits(charts: readonly ChartTimes[]): ChartWaits {
  const of = (type: string) =>
    charts
      .map((chart) => secondsTo(chart, type))
      .filter((s): s is number => s !== undefined)
      .sort((a, b) => a - b);
  const byCreation = charts
    .filter((chart) => !Number.isNaN(Date.parse(chart.metadata.creationTimestamp ?? '')))
    .sort((a, b) => Date.parse(a.metadata.creationTimestamp ?? '') - Date.parse(b.metadata.creationTimestamp ?? ''));
  const firstTenth = byCreation.slice(0, Math.ceil(byCreation.length / 10));
  const firstTenthLongest = Math.max(0, ...firstTenth.map((chart) => secondsTo(chart, 'Installed') ?? 0));
  let slowest: ChartWaits['slowest'];
  for (const chart of byCreation) {
    const installed = secondsTo(chart, 'Installed');
    if (installed === undefined || installed <= (slowest?.installed ?? -1)) continue;
    const createdMs = Date.parse(chart.metadata.creationTimestamp ?? '');
    slowest = { name: chart.metadata.name ?? '', createdMs, installed };
  }
  return {
    jobCreated: of('JobCreated'),
    installed: of('Installed'),
    firstTenthLongest,
    ...(slowest === undefined ? {} : { slowest }),
  };
}
