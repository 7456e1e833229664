/**
 * The API group is configurable so helmflow can serve its own group (helm.k3sm.io) or take over k3s's
 * HelmCharts (helm.cattle.io). Only the group differs; kinds, fields and conditions are identical.
 */
export const API_GROUPS = ['helm.k3sm.io', 'helm.cattle.io'] as const;
export type ApiGroup = (typeof API_GROUPS)[number];

export const DEFAULT_API_GROUP: ApiGroup = 'helm.k3sm.io';
export const API_VERSION = 'v1';

export const HELM_CHART_KIND = 'HelmChart';
export const HELM_CHART_CONFIG_KIND = 'HelmChartConfig';
export const HELM_CHART_PLURAL = 'helmcharts';
export const HELM_CHART_CONFIG_PLURAL = 'helmchartconfigs';

export function apiVersionOf(group: ApiGroup): string {
  return `${group}/${API_VERSION}`;
}

export function isApiGroup(value: string): value is ApiGroup {
  return (API_GROUPS as readonly string[]).includes(value);
}
