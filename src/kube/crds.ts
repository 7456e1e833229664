import type { KubeConfig } from '@kubernetes/client-node';
import { ApiextensionsV1Api, PatchStrategy, setHeaderOptions } from './k8s.js';
import { crdsFor, type ApiGroup } from '../api/index.js';
import { waitFor } from '../lib/wait.js';

/**
 * The field manager helmflow applies its CRDs as. Applying the same CRDs as the same manager changes nothing, so
 * the apiserver keeps serving HelmCharts as it was; a CRD that changes makes it re-initialise their storage, and
 * watches of them are refused (429) or dropped meanwhile.
 */
export const CRD_FIELD_MANAGER = 'helmflow';

/**
 * Applies the HelmChart and HelmChartConfig CRDs of `group` (server-side apply, idempotent) and waits until the
 * apiserver serves them: nothing can be watched before they are Established.
 */
export async function ensureCrds(kc: KubeConfig, group: ApiGroup, timeoutMs = 60_000): Promise<void> {
  const extensions = kc.makeApiClient(ApiextensionsV1Api);
  for (const crd of crdsFor(group)) {
    // A patch body is sent as given: the typed serializer would drop the schema's x-kubernetes-* keys.
    await extensions.patchCustomResourceDefinition(
      { name: crd.metadata.name, body: crd, fieldManager: CRD_FIELD_MANAGER, force: true },
      setHeaderOptions('Content-Type', PatchStrategy.ServerSideApply),
    );
    const name = crd.metadata.name;
    await waitFor(
      `CRD ${name} to be Established`,
      async () => {
        const current = await extensions.readCustomResourceDefinition({ name });
        return current.status?.conditions?.some((c) => c.type === 'Established' && c.status === 'True') === true;
      },
      { timeoutMs, intervalMs: 200 },
    );
  }
}
