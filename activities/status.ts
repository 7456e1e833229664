import { PatchStrategy, setHeaderOptions } from '../src/kube/k8s.js';
import {
  API_VERSION,
  HELM_CHART_PLURAL,
  uninstallFinalizers,
  type HelmChart,
  type HelmChartCondition,
} from '../src/api/index.js';
import { isNotFound } from '../src/kube/client.js';
import { retryOnConflict } from '../src/kube/retry-on-conflict.js';
import { readChart } from './charts.js';
import type { ActivityDeps } from './deps.js';
import type { ChartTarget, ConditionUpdate, StatusUpdate } from './types.js';
import { recordInstallFailure } from '../src/observability/metrics.js';

/** Conditions merge by type; lastTransitionTime moves only when a condition's status changes. */
export function mergeConditions(
  current: readonly HelmChartCondition[],
  updates: readonly ConditionUpdate[],
  now: string,
): HelmChartCondition[] {
  const merged = [...current];
  for (const update of updates) {
    const index = merged.findIndex((c) => c.type === update.type);
    const previous = index === -1 ? undefined : merged[index];
    const lastTransitionTime =
      previous?.status === update.status && previous.lastTransitionTime ? previous.lastTransitionTime : now;
    const next = { ...update, lastTransitionTime };
    if (index === -1) merged.push(next);
    else merged[index] = next;
  }
  return merged;
}

/**
 * Writes the chart's status. The write carries the resourceVersion it read, so it lands only on this uid's
 * object and never over a newer write; a conflict is read again and retried. `read`: the chart as the caller
 * just read it (this uid), saving the first read; a stale one only costs a conflict and a fresh read.
 */
export async function setStatus(
  deps: ActivityDeps,
  target: ChartTarget,
  update: StatusUpdate,
  read?: HelmChart,
): Promise<void> {
  const failed = update.conditions.find((c) => c.type === 'Failed' && c.status === 'True');
  // Every Failed=True goes through here (refusals, permanent API errors, failed Jobs): one place counts them.
  if (failed !== undefined) recordInstallFailure(failed.reason);
  let first = read;
  await retryOnConflict(`status of HelmChart ${target.ref.namespace}/${target.ref.name}`, async () => {
    const chart = first ?? (await readChart(deps, target));
    first = undefined;
    if (chart === undefined) return;
    const status = {
      ...(update.jobName === undefined ? {} : { jobName: update.jobName }),
      ...(update.phase === undefined ? {} : { phase: update.phase }),
      ...(update.digest === undefined ? {} : { digest: update.digest }),
      ...(update.observedGeneration === undefined ? {} : { observedGeneration: update.observedGeneration }),
      ...(update.release === undefined ? {} : { release: update.release }),
      conditions: mergeConditions(chart.status?.conditions ?? [], update.conditions, new Date().toISOString()),
    };
    try {
      await deps.custom.patchNamespacedCustomObjectStatus(
        {
          group: target.ref.group,
          version: API_VERSION,
          namespace: target.ref.namespace,
          plural: HELM_CHART_PLURAL,
          name: target.ref.name,
          body: { metadata: { resourceVersion: chart.metadata.resourceVersion }, status },
        },
        setHeaderOptions('Content-Type', PatchStrategy.MergePatch),
      );
    } catch (err) {
      if (!isNotFound(err)) throw err;
    }
  });
}

/**
 * Removes helmflow's finalizer (and, serving helm.cattle.io, k3s's: see uninstallFinalizers), tested against this
 * uid and each finalizer's place in the same patch, so a recreated chart keeps its own.
 */
export async function releaseFinalizer(deps: ActivityDeps, target: ChartTarget): Promise<void> {
  const chart = await readChart(deps, target);
  if (chart === undefined) return;
  const finalizers = chart.metadata.finalizers ?? [];
  const released = uninstallFinalizers(deps.group);
  // Highest index first, so each removal leaves the places of the ones still to remove as tested.
  const indices = finalizers
    .map((finalizer, index) => (released.includes(finalizer) ? index : -1))
    .filter((index) => index !== -1)
    .reverse();
  if (indices.length === 0) return;
  try {
    await deps.custom.patchNamespacedCustomObject(
      {
        group: target.ref.group,
        version: API_VERSION,
        namespace: target.ref.namespace,
        plural: HELM_CHART_PLURAL,
        name: target.ref.name,
        body: [
          { op: 'test', path: '/metadata/uid', value: target.uid },
          ...indices.flatMap((index) => [
            { op: 'test', path: `/metadata/finalizers/${index}`, value: finalizers[index] },
            { op: 'remove', path: `/metadata/finalizers/${index}` },
          ]),
        ],
      },
      setHeaderOptions('Content-Type', PatchStrategy.JsonPatch),
    );
  } catch (err) {
    if (isNotFound(err)) return;
    throw err;
  }
}
