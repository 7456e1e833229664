// One series' value in a Prometheus text scrape (helmflow's /metrics, the apiserver's): the benches read single
// counters and gauges, not whole families. Pure: table-tested in test/unit/prometheus-text.test.ts.

/** The value of `series` (its name, and its labels as the scrape writes them), or undefined when absent. */
export function seriesValue(metrics: string, series: string): number | undefined {
  const line = metrics.split('\n').find((l) => l.startsWith(`${series} `));
  return line === undefined ? undefined : Number(line.slice(series.length + 1));
}
