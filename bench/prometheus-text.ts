// One series' value in a Prometheus text scrape (helmflow's /metrics, the apiserver's): the benches read single
// counters and gauges, not whole families. Pure: table-tested in test/unit/prometheus-text.test.ts.

/** The value of `series` (its name, and its labels as the scrape writes them), or undefined when absent. */
export function seriesValue(metrics: string, series: string): number | undefined {
  const line = metrics.split('\n').find((l) => l.startsWith(`${series} `));
  return line === undefined ? undefined : Number(line.slice(series.length + 1));
}

/**
 * The values of one metric's series (`<name>{…} value` lines), summed by the value of one label: the worker
 * core's `temporal_activity_task_received_total` by `activity_type` is how many activity tasks of each type the
 * core received. Series without the label are left out.
 */
export function sumsByLabel(metrics: string, name: string, label: string): Map<string, number> {
  const sums = new Map<string, number>();
  const labelPattern = new RegExp(`(?:^|,)${label}="([^"]*)"`);
  for (const line of metrics.split('\n')) {
    if (!line.startsWith(`${name}{`)) continue;
    const match = /\{([^}]*)\} (\S+)$/.exec(line);
    const value = labelPattern.exec(match?.[1] ?? '')?.[1];
    if (match === null || value === undefined) continue;
    sums.set(value, (sums.get(value) ?? 0) + Number(match[2]));
  }
  return sums;
}

/**
 * The series of the metrics named `names` (`<name>{…} value` or `<name> value`) whose value is not zero, as the
 * scrape writes them: the worker core's failed calls to Temporal, say, whose labels the bench need not know.
 */
export function nonZeroSeries(metrics: string, names: readonly string[]): string[] {
  return metrics.split('\n').filter((line) => {
    const name = /^[A-Za-z_:][\w:]*/.exec(line)?.[0];
    if (name === undefined || !names.includes(name)) return false;
    const value = Number(line.slice(line.lastIndexOf(' ') + 1));
    return Number.isFinite(value) && value !== 0;
  });
}
