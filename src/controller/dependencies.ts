/**
 * Whether a chart's installs must wait for the charts its depends-on annotation names (src/api/depends-on.ts),
 * decided from the controller's cache of HelmCharts alone. Pure: table-tested.
 */
import {
  chartKeyText,
  DependenciesReadyCondition,
  dependsOn,
  DEPENDS_ON_ANNOTATION,
  type ChartKey,
  type HelmChart,
} from '../api/index.js';
import type { DependencyHold } from '../../workflows/contract.js';

export type ChartLookup = (key: ChartKey) => HelmChart | undefined;

const keyOf = (chart: HelmChart): ChartKey => ({ namespace: chart.metadata.namespace, name: chart.metadata.name });

/** The charts `chart` depends on; a malformed annotation names none here (the chart itself is refused for it). */
export function dependencyKeys(chart: HelmChart): ChartKey[] {
  const parsed = dependsOn(chart.metadata.annotations, chart.metadata.namespace);
  return 'charts' in parsed ? parsed.charts : [];
}

/** Installed at the generation it has now, and not being deleted: what a dependent may build on. */
export function isInstalled(chart: HelmChart | undefined): boolean {
  if (chart === undefined || chart.metadata.deletionTimestamp !== undefined) return false;
  const { status } = chart;
  return status?.phase === 'Installed' && status.observedGeneration === chart.metadata.generation;
}

/**
 * A path of depends-on edges from `chart` back to itself (first and last element the chart), or undefined. Only
 * a cycle through the chart refuses it: a chart that merely waits on one whose chain loops just waits.
 */
export function cycleThrough(chart: HelmChart, lookup: ChartLookup): ChartKey[] | undefined {
  const start = chartKeyText(keyOf(chart));
  const seen = new Set<string>();
  const walk = (from: HelmChart, path: ChartKey[]): ChartKey[] | undefined => {
    for (const next of dependencyKeys(from)) {
      const text = chartKeyText(next);
      if (text === start) return [...path, next];
      if (seen.has(text)) continue;
      seen.add(text);
      const nextChart = lookup(next);
      const found = nextChart === undefined ? undefined : walk(nextChart, [...path, next]);
      if (found !== undefined) return found;
    }
    return undefined;
  };
  return walk(chart, [keyOf(chart)]);
}

/**
 * What holds `chart`'s installs back: a malformed annotation or a cycle (refused until the annotations change), or
 * the dependencies not installed yet (named, with "not found" for those absent). Undefined when nothing does. The
 * message names charts, not their phases, so a dependency moving from Pending to Installing sends no signal.
 */
export function dependencyHold(chart: HelmChart, lookup: ChartLookup): DependencyHold | undefined {
  const parsed = dependsOn(chart.metadata.annotations, chart.metadata.namespace);
  if ('invalid' in parsed) return { reason: DependenciesReadyCondition.invalid, message: parsed.invalid };
  if (parsed.charts.length === 0) return undefined;
  const cycle = cycleThrough(chart, lookup);
  if (cycle !== undefined) {
    return {
      reason: DependenciesReadyCondition.cycle,
      message: `${DEPENDS_ON_ANNOTATION} makes a cycle, so none of its charts could ever install: ${cycle.map(chartKeyText).join(' → ')}`,
    };
  }
  const waiting = parsed.charts.filter((key) => !isInstalled(lookup(key)));
  if (waiting.length === 0) return undefined;
  const named = waiting.map((key) => `${chartKeyText(key)}${lookup(key) === undefined ? ' (not found)' : ''}`);
  return { reason: DependenciesReadyCondition.notReady, message: `waiting for ${named.join(', ')} to be installed` };
}
