import { ApiextensionsV1Api } from '@kubernetes/client-node';
import { crdsFor, renderCrdsYaml, type ApiGroup } from '../../../src/api/index.js';
import { CRD_FIELD_MANAGER } from '../../../src/kube/crds.js';
import { waitFor } from '../../../src/lib/wait.js';
import { kubeConfig, kubectl } from './kube.js';

/**
 * Applies a group's HelmChart and HelmChartConfig CRDs (the text committed in deploy/crds, from
 * renderCrdsYaml) to the test stack with the pinned kubectl, and returns once both are Established and served in
 * discovery, so the next `kubectl apply` of a HelmChart finds its kind. Safe to call again: apply is idempotent.
 */
export async function installCrds(group: ApiGroup, timeoutMs = 60_000): Promise<void> {
  // As helmflow's own field manager: the controller applies the same CRDs when it starts leading, and a change of
  // manager would be a CRD update, after which the apiserver re-initialises HelmChart storage while that
  // controller starts its watches.
  const applied = kubectl(
    ['apply', '--server-side', '--force-conflicts', `--field-manager=${CRD_FIELD_MANAGER}`, '-f', '-'],
    renderCrdsYaml(group),
  );
  if (applied.status !== 0) throw new Error(`kubectl apply of the ${group} CRDs failed: ${applied.stderr}`);
  const crds = crdsFor(group);
  for (const crd of crds) await crdEstablished(crd.metadata.name, timeoutMs);
  const plurals = crds.map((crd) => crd.spec.names.plural);
  await waitFor(
    `${group}/v1 to list ${plurals.join(', ')} in discovery`,
    () => {
      const raw = kubectl(['get', '--raw', `/apis/${group}/v1`]);
      if (raw.status !== 0) return undefined;
      const served = (JSON.parse(raw.stdout) as { resources: { name: string }[] }).resources.map((r) => r.name);
      return plurals.every((p) => served.includes(p));
    },
    { timeoutMs },
  );
}

/** Waits until the CustomResourceDefinition `name` has the condition Established=True. */
export async function crdEstablished(name: string, timeoutMs = 60_000): Promise<void> {
  const api = kubeConfig().makeApiClient(ApiextensionsV1Api);
  await waitFor(
    `CRD ${name} to be Established`,
    async () => {
      const crd = await api.readCustomResourceDefinition({ name });
      return crd.status?.conditions?.some((c) => c.type === 'Established' && c.status === 'True') === true;
    },
    { timeoutMs },
  );
}

/**
 * Deletes a group's HelmChart CRDs and waits until they are gone, so later tests' `kubectl … helmchart` is not
 * ambiguous between two groups. The group's HelmCharts must carry no finalizer by then.
 */
export async function removeCrds(group: ApiGroup, timeoutMs = 60_000): Promise<void> {
  const names = crdsFor(group).map((crd) => crd.metadata.name);
  kubectl(['delete', 'crd', '--ignore-not-found', '--wait=false', ...names]);
  await waitFor(`the ${group} CRDs to be gone`, () => kubectl(['get', 'crd', ...names]).status !== 0 || undefined, {
    timeoutMs,
  });
}
