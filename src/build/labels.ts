import type { ApiGroup, HelmChart } from '../api/index.js';
import { fetchesChart, type ChartSource } from './source.js';

/** Marks Jobs that fetch a chart from the network, so they may reach the internet (seed: Network Access). */
export const EGRESS_ANNOTATION = 'k3sm.io/internet-egress';

/** The egress annotation for a Job (and its pod, network policy acting on pods) that fetches its chart; else none. */
export function egressAnnotations(source: ChartSource): Record<string, string> {
  return fetchesChart(source) ? { [EGRESS_ANNOTATION]: 'true' } : {};
}

export const MANAGED_BY = 'helmflow';

/** Label and annotation keys live under the served group, as k3s's `helmcharts.helm.cattle.io/chart` does. */
export function chartLabelKey(group: ApiGroup): string {
  return `helmcharts.${group}/chart`;
}

/** The owner's UID, so objects of a deleted-and-recreated HelmChart of the same name are told apart. */
export function uidLabelKey(group: ApiGroup): string {
  return `helmcharts.${group}/uid`;
}

/** The chart's namespace, on cluster-scoped objects (the ClusterRoleBinding) that cannot say it otherwise. */
export function namespaceLabelKey(group: ApiGroup): string {
  return `helmcharts.${group}/namespace`;
}

/** install or delete, so one selector finds either Job. */
export function actionLabelKey(group: ApiGroup): string {
  return `helmcharts.${group}/action`;
}

/** The digest of the desired state a Job was built from (see digest.ts). */
export function digestAnnotationKey(group: ApiGroup): string {
  return `helmcharts.${group}/digest`;
}

/** The workflow's attempt an install Job belongs to ("delete" on a delete Job): a retried create finds its own Job. */
export function attemptAnnotationKey(group: ApiGroup): string {
  return `helmcharts.${group}/attempt`;
}

/** On a repeated Event: the last failed pod it counted (see event-series.ts), so a retried report counts nothing twice. */
export function occurrenceAnnotationKey(group: ApiGroup): string {
  return `helmcharts.${group}/occurrence`;
}

export function chartLabels(chart: HelmChart, group: ApiGroup): Record<string, string> {
  return {
    'app.kubernetes.io/managed-by': MANAGED_BY,
    [chartLabelKey(group)]: chart.metadata.name,
    [uidLabelKey(group)]: chart.metadata.uid,
  };
}

/** A label selector for every Job (and other object) built for this HelmChart. */
export function chartSelector(chart: HelmChart, group: ApiGroup): string {
  return `${chartLabelKey(group)}=${chart.metadata.name},${uidLabelKey(group)}=${chart.metadata.uid}`;
}

/**
 * `<group>/crds: apply` on a HelmChart: helmflow server-side applies the chart's `crds/` when they are behind (helm
 * never upgrades them). `report`, or none, only reports the difference; any other value is refused
 * (choice-annotations.ts). CRDs are never deleted.
 */
export function crdsAnnotationKey(group: ApiGroup): string {
  return `${group}/crds`;
}

export const CRDS_APPLY = 'apply';
/** The values `<group>/crds` may have; the first is what no annotation means. */
export const CRDS_CHOICES = ['report', CRDS_APPLY] as const;

/**
 * `<group>/preflight: skip` on a HelmChart: its install Job runs no pre-flight (no `preflight` init container), so
 * `helm upgrade` is the first to fetch and render the chart. `run`, or none, keeps pre-flight; any other value is
 * refused (choice-annotations.ts). `skip` changes the Job, so it is part of the desired-state digest (digest.ts):
 * adding or removing it replaces the install Job. The install Job that skips carries it too, so its reports can
 * tell it from a Job made before pre-flight existed.
 */
export function preflightAnnotationKey(group: ApiGroup): string {
  return `${group}/preflight`;
}

export const PREFLIGHT_SKIP = 'skip';
/** The values `<group>/preflight` may have; the first is what no annotation means. */
export const PREFLIGHT_CHOICES = ['run', PREFLIGHT_SKIP] as const;

export function skipsPreflight(annotations: Readonly<Record<string, string>> | undefined, group: ApiGroup): boolean {
  return annotations?.[preflightAnnotationKey(group)] === PREFLIGHT_SKIP;
}

/**
 * `<group>/wait` on a HelmChart: the wait strategy its Jobs give helm (`helm upgrade --wait=<it>`, `helm uninstall
 * --wait=<it>`). `watcher`, or none, is helm 4's default: it lists and watches every object of the release's kinds
 * in the release's namespace until each of the release's own is ready, custom resources and Jobs included, so the
 * more objects of those kinds the namespace holds, the more each wait costs (bench/crowded-namespace.ts). `legacy` is
 * helm 3's (its only one): it polls the release's own objects and does not wait for Jobs or custom
 * resources. Any other value is refused (choice-annotations.ts). `legacy` changes the Job, so it is part of the
 * desired-state digest (digest.ts); `watcher` and none are the same Job.
 */
export function waitAnnotationKey(group: ApiGroup): string {
  return `${group}/wait`;
}

export const WAIT_STRATEGIES = ['watcher', 'legacy'] as const;
export type WaitStrategy = (typeof WAIT_STRATEGIES)[number];
/** helm 4's own: what `--wait` alone means, and what a chart without the annotation gets. */
export const DEFAULT_WAIT: WaitStrategy = 'watcher';

/** The chart's wait strategy; undefined when the annotation names one helm does not have. */
export function waitStrategyOf(
  annotations: Readonly<Record<string, string>> | undefined,
  group: ApiGroup,
): WaitStrategy | undefined {
  const value = annotations?.[waitAnnotationKey(group)];
  if (value === undefined) return DEFAULT_WAIT;
  return WAIT_STRATEGIES.find((w) => w === value);
}

/**
 * The wait a Job is built with. planInstall refuses a strategy helm does not have before an install is built, and
 * an uninstall is never refused, so a builder never hands helm one: it falls back to helm's default.
 */
export function jobWaitStrategy(
  annotations: Readonly<Record<string, string>> | undefined,
  group: ApiGroup,
): WaitStrategy {
  return waitStrategyOf(annotations, group) ?? DEFAULT_WAIT;
}
