import { chartContentConfigMapName, serviceAccountName, valuesSecretName } from './names.js';

/** A namespaced object by kind and name: enough to read or delete it. */
export interface ObjectRef {
  apiVersion: string;
  kind: string;
  metadata: { name: string; namespace: string };
}

/** The namespaced objects of InstallObjects (index.ts) that outlive a Job: what an uninstall's clean-up removes. */
export interface InstallObjectRefs {
  serviceAccount: ObjectRef;
  valuesSecret: ObjectRef;
  /** Made only for a chartContent install, but looked for always: the chart's source may have changed since. */
  chartContent: ObjectRef;
}

/**
 * Those objects by the names their builders give them, for a chart that may no longer be readable (its uninstall).
 * The ClusterRoleBinding is not among them: its name may be the fallback, so it is found by the chart's uid label.
 */
export function installObjectRefs(namespace: string, chartName: string): InstallObjectRefs {
  const ref = (kind: string, name: string): ObjectRef => ({ apiVersion: 'v1', kind, metadata: { name, namespace } });
  return {
    serviceAccount: ref('ServiceAccount', serviceAccountName(chartName)),
    valuesSecret: ref('Secret', valuesSecretName(chartName)),
    chartContent: ref('ConfigMap', chartContentConfigMapName(chartName)),
  };
}
