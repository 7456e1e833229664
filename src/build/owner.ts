import type { V1OwnerReference } from '@kubernetes/client-node';
import { HELM_CHART_KIND, apiVersionOf, type ApiGroup, type HelmChart } from '../api/index.js';

/**
 * Makes a namespaced object part of the HelmChart, so the garbage collector removes it with the chart and a
 * write can be checked against the chart's UID. Cluster-scoped objects (the ClusterRoleBinding) cannot have a
 * namespaced owner and are deleted by the uninstall instead.
 */
export function ownerReference(chart: HelmChart, group: ApiGroup): V1OwnerReference {
  return {
    apiVersion: apiVersionOf(group),
    kind: HELM_CHART_KIND,
    name: chart.metadata.name,
    uid: chart.metadata.uid,
    controller: true,
  };
}
