import type { KubeConfig } from '@kubernetes/client-node';
import { CustomObjectsApi, PatchStrategy, setHeaderOptions } from '../kube/k8s.js';
import { API_VERSION, HELM_CHART_PLURAL, UNINSTALL_FINALIZER, type HelmChart } from '../api/index.js';

/** Adds helmflow's finalizer, tested against the chart's uid in the same patch. */
export async function addFinalizer(kc: KubeConfig, chart: HelmChart, group: string): Promise<void> {
  const custom = kc.makeApiClient(CustomObjectsApi);
  const finalizers = chart.metadata.finalizers;
  const add =
    finalizers === undefined || finalizers.length === 0
      ? { op: 'add', path: '/metadata/finalizers', value: [UNINSTALL_FINALIZER] }
      : { op: 'add', path: '/metadata/finalizers/-', value: UNINSTALL_FINALIZER };
  await custom.patchNamespacedCustomObject(
    {
      group,
      version: API_VERSION,
      namespace: chart.metadata.namespace,
      plural: HELM_CHART_PLURAL,
      name: chart.metadata.name,
      body: [{ op: 'test', path: '/metadata/uid', value: chart.metadata.uid }, add],
    },
    setHeaderOptions('Content-Type', PatchStrategy.JsonPatch),
  );
}
