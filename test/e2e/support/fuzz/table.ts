import type { FuzzCase } from './generate.js';
import { outcomeRow, type Outcome } from './outcomes.js';
import type { Expectation } from './verdicts.js';

export interface CaseResult {
  fuzzCase: FuzzCase;
  expectation: Expectation;
  outcome: Outcome;
  /** The HelmChartConfig's own fate, when the case has one. */
  config?: string;
  /** Seconds from the chart's apply to its first condition (charts the apiserver accepted). */
  firstConditionSeconds?: number;
  /** Seconds from the chart's apply to its outcome. */
  settledSeconds?: number;
}

const seconds = (values: number[], at: number) => {
  const sorted = [...values].sort((a, b) => a - b);
  const value = sorted[Math.min(sorted.length - 1, Math.floor(at * sorted.length))];
  return value === undefined ? '-' : value.toFixed(1);
};

function rows(results: CaseResult[], rowOf: (r: CaseResult) => string | undefined) {
  const groups = new Map<string, CaseResult[]>();
  for (const result of results) {
    const row = rowOf(result);
    if (row !== undefined) groups.set(row, [...(groups.get(row) ?? []), result]);
  }
  return [...groups.entries()].sort(([a], [b]) => a.localeCompare(b));
}

/**
 * The outcome table: each row's count, then seconds from apply to the first condition and to the outcome
 * (min / median / max).
 */
export function outcomeTable(seed: number, results: CaseResult[]): string {
  const count = (kind: (o: Outcome) => boolean) => results.filter((r) => kind(r.outcome)).length;
  const failedAs = (type: string) => (o: Outcome) => o.kind === 'failed' && o.type === type;
  const lines = [
    `fuzz outcome table (seed ${seed}, ${results.length} HelmCharts, ${results.filter((r) => r.config).length} HelmChartConfigs)`,
    `refused by the apiserver ${count((o) => o.kind === 'refused')}, Installed ${count((o) => o.kind === 'installed')}, ` +
      `Failed=True ${count(failedAs('Failed'))}, Installed=False/InstallAttemptFailed ${count(failedAs('Installed'))}, ` +
      `pre-flight (SourceAccessible or DryRunRendered False) ${count(failedAs('SourceAccessible')) + count(failedAs('DryRunRendered'))}, ` +
      `silent ${count((o) => o.kind === 'silent')}`,
    `${'outcome'.padEnd(58)} ${'count'.padStart(5)}  first condition s (min/med/max)  outcome s (med/max)`,
  ];
  for (const [row, group] of rows(results, (r) => outcomeRow(r.outcome))) {
    const first = group.flatMap((r) => (r.firstConditionSeconds === undefined ? [] : [r.firstConditionSeconds]));
    const settled = group.flatMap((r) => (r.settledSeconds === undefined ? [] : [r.settledSeconds]));
    const firstText = first.length === 0 ? '-' : `${seconds(first, 0)}/${seconds(first, 0.5)}/${seconds(first, 1)}`;
    const settledText = settled.length === 0 ? '-' : `${seconds(settled, 0.5)}/${seconds(settled, 1)}`;
    lines.push(
      `${row.slice(0, 58).padEnd(58)} ${String(group.length).padStart(5)}  ${firstText.padEnd(31)}  ${settledText}`,
    );
  }
  for (const [row, group] of rows(results, (r) =>
    r.config === undefined ? undefined : `HelmChartConfig ${r.config}`,
  )) {
    lines.push(`${row.slice(0, 58).padEnd(58)} ${String(group.length).padStart(5)}`);
  }
  return lines.join('\n');
}

/** One line naming a case fully, for failure messages: the seed reproduces it. */
export function describeCase(seed: number, fuzzCase: FuzzCase): string {
  const ns = (fuzzCase.chart.metadata as { namespace?: string }).namespace ?? '';
  return `seed ${seed} case #${fuzzCase.index} ${ns}/${JSON.stringify(fuzzCase.name)} [${fuzzCase.traits.join(' ')}]`;
}
