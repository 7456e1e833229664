import type { V1ClusterRoleBinding } from '@kubernetes/client-node';
import type { ApiGroup, HelmChart } from '../api/index.js';
import { chartLabels, namespaceLabelKey } from './labels.js';
import { clusterRoleBindingName, serviceAccountName } from './names.js';

/**
 * Binds the chart's ServiceAccount to the install role (cluster-admin by default: helm installs arbitrary
 * objects). Cluster-scoped, so it cannot be owned by the namespaced HelmChart; the labels name its chart,
 * namespace and UID, and the uninstall deletes it.
 */
export function clusterRoleBinding(chart: HelmChart, group: ApiGroup, clusterRole: string): V1ClusterRoleBinding {
  const { name, namespace } = chart.metadata;
  return {
    apiVersion: 'rbac.authorization.k8s.io/v1',
    kind: 'ClusterRoleBinding',
    metadata: {
      name: clusterRoleBindingName(namespace, name),
      labels: { ...chartLabels(chart, group), [namespaceLabelKey(group)]: namespace },
    },
    roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: clusterRole },
    subjects: [{ kind: 'ServiceAccount', name: serviceAccountName(name), namespace }],
  };
}
