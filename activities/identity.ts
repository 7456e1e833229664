import type { KubernetesObject, V1ClusterRoleBinding, V1ServiceAccount } from '@kubernetes/client-node';
import type { HelmChart } from '../src/api/index.js';
import { chooseBindingName, fallbackClusterRoleBindingName } from '../src/build/binding-name.js';
import { buildDelete, buildInstall, installObjectRefs, uidLabelKey, type InstallObjects } from '../src/build/index.js';
import type { ChartIdentity } from '../src/build/ownership.js';
import { readChart, readInstallInput } from './charts.js';
import type { ActivityDeps } from './deps.js';
import { claim, claimOrFail, deleteIfOwned, holderOf } from './objects.js';
import type { ChartTarget } from './types.js';

const identityOf = (deps: ActivityDeps, chart: HelmChart): ChartIdentity => ({
  group: deps.group,
  namespace: chart.metadata.namespace,
  name: chart.metadata.name,
  uid: chart.metadata.uid,
});

const uidSelector = (deps: ActivityDeps, uid: string) => `${uidLabelKey(deps.group)}=${uid}`;

/** The ClusterRoleBindings that carry this chart's uid label, whatever their names. */
async function labelledBindings(deps: ActivityDeps, uid: string): Promise<V1ClusterRoleBinding[]> {
  const list = await deps.rbac.listClusterRoleBinding({ labelSelector: uidSelector(deps, uid) });
  return list.items;
}

/**
 * The binding under the name chooseBindingName picks. A create that loses the seed's name to a colliding chart in
 * the same instant falls back to the chart's own name; a fallback name held by someone else is ObjectNotOwned.
 */
async function ensureBinding(deps: ActivityDeps, binding: V1ClusterRoleBinding, chart: ChartIdentity): Promise<void> {
  const labelled = (await labelledBindings(deps, chart.uid)).map((b) => b.metadata?.name ?? '');
  const seedName = binding.metadata?.name ?? '';
  const seed = labelled.includes(seedName) ? 'mine' : await holderOf(deps, binding, chart);
  const name = chooseBindingName({ namespace: chart.namespace, chartName: chart.name, labelled, seed });
  const named = (n: string): KubernetesObject => {
    const copy = structuredClone(binding);
    (copy.metadata ??= {}).name = n;
    return copy;
  };
  if (name === seedName && (await claim(deps, named(name), chart)).claimed) return;
  await claimOrFail(deps, named(fallbackClusterRoleBindingName(chart.namespace, chart.name)), chart);
}

/**
 * ServiceAccount helm-<name> and its ClusterRoleBinding: the identity the install and delete Jobs run as. Neither
 * is ever taken from another owner: a user's ServiceAccount of that name is ObjectNotOwned, not bound to the role.
 */
export async function ensureJobIdentity(
  deps: ActivityDeps,
  chart: HelmChart,
  objects: { serviceAccount: V1ServiceAccount; clusterRoleBinding: V1ClusterRoleBinding },
): Promise<void> {
  const identity = identityOf(deps, chart);
  await claimOrFail(deps, objects.serviceAccount, identity);
  await ensureBinding(deps, objects.clusterRoleBinding, identity);
}

export async function ensureIdentity(deps: ActivityDeps, target: ChartTarget): Promise<void> {
  const chart = await readChart(deps, target);
  if (chart === undefined) return;
  await ensureJobIdentity(deps, chart, buildDelete(chart, { ...deps.build, group: deps.group }));
}

/** The values Secret and, for a chartContent install, the archive's ConfigMap (removed when no longer used). */
export async function ensureInstallInputs(deps: ActivityDeps, target: ChartTarget): Promise<void> {
  const input = await readInstallInput(deps, target);
  if (input === undefined) return;
  await applyInstallInputs(deps, input.chart, buildInstall(input, { ...deps.build, group: deps.group }));
}

/** The install inputs built from a chart already read and validated (prepare.ts), never taken from another owner. */
export async function applyInstallInputs(
  deps: ActivityDeps,
  chart: HelmChart,
  objects: Pick<InstallObjects, 'valuesSecret' | 'chartContent'>,
): Promise<void> {
  const identity = identityOf(deps, chart);
  await claimOrFail(deps, objects.valuesSecret, identity);
  const owned = (found: KubernetesObject) => found.metadata?.labels?.[uidLabelKey(deps.group)] === chart.metadata.uid;
  if (objects.chartContent === undefined) {
    const stale = installObjectRefs(chart.metadata.namespace, chart.metadata.name).chartContent;
    await deleteIfOwned(deps, stale, owned);
  } else {
    await claimOrFail(deps, objects.chartContent, identity);
  }
}

/** Everything the chart's installs needed, once its uninstall is done; only objects labelled with this uid. */
export async function removeInstallObjects(deps: ActivityDeps, target: ChartTarget): Promise<void> {
  const { name, namespace } = target.ref;
  const owned = (found: KubernetesObject) => found.metadata?.labels?.[uidLabelKey(deps.group)] === target.uid;
  const { serviceAccount, valuesSecret, chartContent } = installObjectRefs(namespace, name);
  const objects: KubernetesObject[] = [
    serviceAccount,
    valuesSecret,
    chartContent,
    // The binding may carry the seed's name or the fallback: found by this chart's uid label, not by name.
    ...(await labelledBindings(deps, target.uid)).map((binding) => ({
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'ClusterRoleBinding',
      metadata: { name: binding.metadata?.name ?? '' },
    })),
  ];
  for (const object of objects) await deleteIfOwned(deps, object, owned);
}
