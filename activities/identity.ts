import type { KubernetesObject } from '@kubernetes/client-node';
import { buildDelete, buildInstall, uidLabelKey, type InstallObjects } from '../src/build/index.js';
import {
  chartContentConfigMapName,
  clusterRoleBindingName,
  serviceAccountName,
  valuesSecretName,
} from '../src/build/names.js';
import { readChart, readInstallInput } from './charts.js';
import type { ActivityDeps } from './deps.js';
import { apply, deleteIfOwned } from './objects.js';
import type { ChartTarget } from './types.js';

/** ServiceAccount helm-<name> and ClusterRoleBinding helm-<namespace>-<name>: the Job's identity. */
export async function ensureIdentity(deps: ActivityDeps, target: ChartTarget): Promise<void> {
  const chart = await readChart(deps, target);
  if (chart === undefined) return;
  await applyIdentity(deps, target, buildDelete(chart, { ...deps.build, group: deps.group }));
}

/** Applies the identity built from a chart already read (and, for an install, validated). */
export async function applyIdentity(
  deps: ActivityDeps,
  _target: ChartTarget,
  objects: Pick<InstallObjects, 'serviceAccount' | 'clusterRoleBinding'>,
): Promise<void> {
  await apply(deps, objects.serviceAccount);
  await apply(deps, objects.clusterRoleBinding);
}

/** The values Secret and, for a chartContent install, the archive's ConfigMap (removed when no longer used). */
export async function ensureInstallInputs(deps: ActivityDeps, target: ChartTarget): Promise<void> {
  const input = await readInstallInput(deps, target);
  if (input === undefined) return;
  await applyInstallInputs(deps, target, buildInstall(input, { ...deps.build, group: deps.group }));
}

/** Applies the install inputs built from a chart already read and validated. */
export async function applyInstallInputs(
  deps: ActivityDeps,
  target: ChartTarget,
  objects: Pick<InstallObjects, 'valuesSecret' | 'chartContent'>,
): Promise<void> {
  await apply(deps, objects.valuesSecret);
  const owned = (found: KubernetesObject) => found.metadata?.labels?.[uidLabelKey(deps.group)] === target.uid;
  if (objects.chartContent === undefined) {
    const name = chartContentConfigMapName(target.ref.name);
    const stale = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace: target.ref.namespace } };
    await deleteIfOwned(deps, stale, owned);
  } else {
    await apply(deps, objects.chartContent);
  }
}

/** Everything the chart's installs needed, once its uninstall is done; only objects labelled with this uid. */
export async function removeInstallObjects(deps: ActivityDeps, target: ChartTarget): Promise<void> {
  const { name, namespace } = target.ref;
  const owned = (found: KubernetesObject) => found.metadata?.labels?.[uidLabelKey(deps.group)] === target.uid;
  const objects: KubernetesObject[] = [
    { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: serviceAccountName(name), namespace } },
    {
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'ClusterRoleBinding',
      metadata: { name: clusterRoleBindingName(namespace, name) },
    },
    { apiVersion: 'v1', kind: 'Secret', metadata: { name: valuesSecretName(name), namespace } },
    { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: chartContentConfigMapName(name), namespace } },
  ];
  for (const object of objects) await deleteIfOwned(deps, object, owned);
}
