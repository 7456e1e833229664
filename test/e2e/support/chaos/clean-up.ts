import { MANAGED_BY } from '../../../../src/build/labels.js';
import type { HelmChart } from '../../../../src/api/index.js';
import { waitFor } from '../../../../src/lib/wait.js';
import { customApi } from '../helmcharts.js';
import { clients, kubectl } from '../kube.js';

export interface CleanUp {
  /** From deleting every chart to the last one gone (or the deadline). */
  deleteAllMs: number;
  /** HelmCharts still there at the deadline, with their finalizers: each one is stuck Terminating. */
  stuck: string[];
  /** helmflow's ServiceAccounts, ClusterRoleBindings, Secrets and ConfigMaps of the namespace left behind. */
  leaked: string[];
  /** Helm releases (helm's storage Secrets) left in the namespace. */
  releasesLeft: string[];
}

async function remainingCharts(namespace: string, group: string): Promise<HelmChart[]> {
  const list = (await customApi().listNamespacedCustomObject({
    group,
    version: 'v1',
    namespace,
    plural: 'helmcharts',
  })) as { items: HelmChart[] };
  return list.items;
}

async function leftovers(namespace: string, group: string): Promise<{ leaked: string[]; releases: string[] }> {
  const { core, rbac } = clients();
  const managed = `app.kubernetes.io/managed-by=${MANAGED_BY}`;
  const [accounts, secrets, configMaps, bindings, helmSecrets] = await Promise.all([
    core.listNamespacedServiceAccount({ namespace, labelSelector: managed }),
    core.listNamespacedSecret({ namespace, labelSelector: managed }),
    core.listNamespacedConfigMap({ namespace, labelSelector: managed }),
    rbac.listClusterRoleBinding({ labelSelector: `${managed},helmcharts.${group}/namespace=${namespace}` }),
    core.listNamespacedSecret({ namespace, labelSelector: 'owner=helm' }),
  ]);
  const named = (kind: string, items: { metadata?: { name?: string } }[]) =>
    items.map((i) => `${kind}/${i.metadata?.name ?? '?'}`);
  return {
    leaked: [
      ...named('ServiceAccount', accounts.items),
      ...named('ClusterRoleBinding', bindings.items),
      ...named('Secret', secrets.items),
      ...named('ConfigMap', configMaps.items),
    ],
    // With helm's status and the time it was written, so a release left says whether it outlived the uninstall.
    releases: helmSecrets.items.map(
      (i) =>
        `Secret/${i.metadata?.name ?? '?'} (status ${i.metadata?.labels?.status ?? '?'}, written ${String(i.metadata?.creationTimestamp ?? '?')})`,
    ),
  };
}

/**
 * Deletes every HelmChart of the namespace, waits for them to be gone, then for helmflow's objects and the
 * releases to be gone (the garbage collector may take a moment). What is left at the deadlines is reported.
 */
export async function checkCleanUp(namespace: string, group: string, deadlineMs: number): Promise<CleanUp> {
  const started = Date.now();
  const deleted = kubectl(['delete', `helmcharts.${group}`, '--all', '-n', namespace, '--wait=false']);
  if (deleted.status !== 0) throw new Error(`kubectl delete --all failed: ${deleted.stderr}`);
  await waitFor('every HelmChart to be gone', async () => (await remainingCharts(namespace, group)).length === 0, {
    timeoutMs: deadlineMs,
    intervalMs: 250,
  }).catch(() => undefined);
  const deleteAllMs = Date.now() - started;
  const stuck = (await remainingCharts(namespace, group)).map(
    (c) =>
      `${c.metadata.name} (finalizers ${JSON.stringify(c.metadata.finalizers ?? [])}, phase ${c.status?.phase ?? '-'})`,
  );
  const left = await waitFor(
    'helmflow objects and releases to be gone',
    async () => {
      const found = await leftovers(namespace, group);
      return found.leaked.length + found.releases.length === 0 ? found : undefined;
    },
    { timeoutMs: 30_000, intervalMs: 500 },
  ).catch(() => leftovers(namespace, group));
  return { deleteAllMs, stuck, leaked: left.leaked, releasesLeft: left.releases };
}
