import type { V1Job, V1Pod } from '@kubernetes/client-node';
import { PatchStrategy } from '../src/kube/k8s.js';
import {
  CrdsCurrentCondition,
  crdDrift,
  describeDrift,
  parseChartCrds,
  type CrdLike,
  type HelmChart,
} from '../src/api/index.js';
import { CRDS_APPLY, CRDS_CONTAINER, crdsAnnotationKey, chartSettingsOf } from '../src/build/index.js';
import { isNotFound } from '../src/kube/client.js';
import { releaseStored } from '../src/kube/helm-releases.js';
import { readChart } from './charts.js';
import { FIELD_MANAGER, type ActivityDeps } from './deps.js';
import { recordRepeatedEvent } from './events.js';
import { podsOfJob } from './failed-pods.js';
import { setStatus } from './status.js';
import type { ChartTarget } from './types.js';
import { ChartEventReason } from '../src/api/event-reasons.js';

/** Whether a Job prints its chart's CRDs at all (a Job made by an earlier helmflow does not). */
export function printsChartCrds(job: V1Job): boolean {
  return job.spec?.template.spec?.initContainers?.some((c) => c.name === CRDS_CONTAINER) === true;
}

/**
 * What `container` printed in the Job's newest pod where it ended well (an init container, like the install Job's
 * `crds`, or the main one, like the crds Job's `helm`); undefined while no pod has such an end.
 */
export async function printedLog(
  deps: ActivityDeps,
  namespace: string,
  job: { jobName: string; jobUid: string },
  container: string,
): Promise<string | undefined> {
  const endedWell = (pod: V1Pod) =>
    [...(pod.status?.initContainerStatuses ?? []), ...(pod.status?.containerStatuses ?? [])].find(
      (c) => c.name === container,
    )?.state?.terminated?.exitCode === 0;
  const pod = (await podsOfJob(deps, namespace, job.jobName, job.jobUid)).find(endedWell);
  if (pod?.metadata?.name === undefined) return undefined;
  return deps.core.readNamespacedPodLog({ name: pod.metadata.name, namespace, container });
}

async function clusterCrd(deps: ActivityDeps, name: string): Promise<CrdLike | undefined> {
  try {
    return await deps.objects.read({
      apiVersion: 'apiextensions.k8s.io/v1',
      kind: 'CustomResourceDefinition',
      metadata: { name },
    });
  } catch (err) {
    if (isNotFound(err)) return undefined;
    throw err;
  }
}

/** Whether helm has a record of the release (its storage driver's Secrets or ConfigMaps), so helm will upgrade it. */
export async function releaseExists(deps: ActivityDeps, chart: HelmChart): Promise<boolean> {
  const { release, targetNamespace, driver } = chartSettingsOf(chart, undefined);
  return releaseStored(deps.core, targetNamespace, release, driver);
}

/** Server-side applies one of the chart's CRDs as helmflow; never deletes, never touches a CRD it was not given. */
async function applyCrd(deps: ActivityDeps, crd: CrdLike): Promise<void> {
  await deps.objects.patch(crd, undefined, undefined, FIELD_MANAGER, true, PatchStrategy.ServerSideApply);
}

/**
 * Who read the chart's crds/: named in the report (a Job, or the chart's own archive), and the occurrence its
 * Event counts once (a Job's uid; for the archive, the attempt), so a retried read is not counted twice.
 */
export interface CrdsReader {
  name: string;
  occurrence: string;
}

/** What one comparison found: how many CRDs the chart printed, and those left behind (not applied), described. */
export interface CrdsComparison {
  crds: number;
  behind: string | undefined;
}

/**
 * Compares the CRDs a helmflow Job printed (`helm show crds`) with the cluster's CRDs, which helm installs only
 * when absent and never upgrades. Each CRD the cluster has behind (a version or a schema field missing, or the CRD
 * absent before an upgrade) is named in `CRDsCurrent=False/CRDsStale` and a `HelmChartCRDsStale` Warning; with the
 * annotation `<group>/crds: apply` the chart's CRDs are server-side applied instead (`CRDsApplied`, a Normal Event).
 * CRDs are never deleted. `upgrade` says whether helm has the release (asked only when something is behind). The
 * CRDs go from the pod's log to Kubernetes, never through Temporal.
 */
export async function compareChartCrds(
  deps: ActivityDeps,
  target: ChartTarget,
  reader: CrdsReader,
  printed: string,
  upgrade: (chart: HelmChart) => Promise<boolean>,
): Promise<CrdsComparison> {
  const { name: by, occurrence } = reader;
  const chartCrds = parseChartCrds(printed);
  const crds = chartCrds.length;
  if (crds === 0) return { crds, behind: undefined };
  const chart = await readChart(deps, target);
  if (chart === undefined) return { crds, behind: undefined };
  const apply = chart.metadata.annotations?.[crdsAnnotationKey(target.ref.group)] === CRDS_APPLY;
  const drifts = [];
  let isUpgrade: boolean | undefined;
  for (const crd of chartCrds) {
    const drift = crdDrift(crd, await clusterCrd(deps, crd.metadata?.name ?? ''));
    if (drift === undefined) continue;
    // A first install creates the CRDs that are absent; only an upgrade leaves them so.
    if (drift.missing && !apply) isUpgrade ??= await upgrade(chart);
    if (!drift.missing || apply || isUpgrade === true) drifts.push({ crd, drift });
  }
  const names = chartCrds.map((c) => c.metadata?.name ?? '').join(', ');
  if (drifts.length === 0) {
    await setStatus(deps, target, {
      conditions: [
        {
          type: CrdsCurrentCondition.type,
          status: 'True',
          reason: CrdsCurrentCondition.current,
          message: `nothing behind in the chart's crds/ (${names}): each is in the cluster with every version and field, or absent before a first install, which creates it`,
        },
      ],
    });
    return { crds, behind: undefined };
  }
  const behind = drifts.map((d) => describeDrift(d.drift)).join('\n');
  if (apply) for (const { crd } of drifts) await applyCrd(deps, crd);
  // Applied: CRDsCurrent=True and a Normal Event; else CRDsCurrent=False/CRDsStale and a Warning, saying what to do.
  const report = apply
    ? {
        status: 'True' as const,
        reason: CrdsCurrentCondition.applied,
        event: { type: 'Normal' as const, reason: ChartEventReason.CRDsApplied },
        message: `${by}: server-side applied the chart's CRDs that were behind (${crdsAnnotationKey(target.ref.group)}: ${CRDS_APPLY}):\n${behind}`,
      }
    : {
        status: 'False' as const,
        reason: CrdsCurrentCondition.stale,
        event: { type: 'Warning' as const, reason: ChartEventReason.CRDsStale },
        message:
          `${by}: the cluster's CRDs are behind the chart's crds/, which helm upgrade never updates:\n${behind}\n` +
          `Apply them yourself, or annotate the HelmChart ${crdsAnnotationKey(target.ref.group)}=${CRDS_APPLY} to have helmflow apply them.`,
      };
  const { status, reason, event, message } = report;
  await setStatus(deps, target, { conditions: [{ type: CrdsCurrentCondition.type, status, reason, message }] });
  await recordRepeatedEvent(deps, target, { ...event, message }, { jobUid: occurrence, failedPods: 1 });
  return { crds, behind: apply ? undefined : behind };
}

/**
 * The install Job's own comparison, once one of its pods has printed the chart's `crds/` (the `crds` init
 * container, right before `helm upgrade`): it runs beside the upgrade, for an attempt whose CRDs were not compared
 * before its Job (a first install, or a chart never seen printing CRDs). Returns how many CRDs the chart has, or
 * undefined while no pod has printed them yet.
 */
export async function checkChartCrds(deps: ActivityDeps, target: ChartTarget, job: V1Job): Promise<number | undefined> {
  const printed = { jobName: job.metadata?.name ?? '', jobUid: job.metadata?.uid ?? '' };
  const text = await printedLog(deps, target.ref.namespace, printed, CRDS_CONTAINER);
  if (text === undefined) return undefined;
  const reader = { name: printed.jobName, occurrence: printed.jobUid };
  return (await compareChartCrds(deps, target, reader, text, (chart) => releaseExists(deps, chart))).crds;
}
