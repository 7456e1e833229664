import type { V1ServiceAccount } from '@kubernetes/client-node';
import type { ApiGroup, HelmChart } from '../api/index.js';
import { chartLabels } from './labels.js';
import { serviceAccountName } from './names.js';
import { ownerReference } from './owner.js';

/** The Job's identity, helm-<name> in the chart's namespace (k3s). */
export function serviceAccount(chart: HelmChart, group: ApiGroup): V1ServiceAccount {
  return {
    apiVersion: 'v1',
    kind: 'ServiceAccount',
    metadata: {
      name: serviceAccountName(chart.metadata.name),
      namespace: chart.metadata.namespace,
      labels: chartLabels(chart, group),
      ownerReferences: [ownerReference(chart, group)],
    },
    automountServiceAccountToken: true,
  };
}
