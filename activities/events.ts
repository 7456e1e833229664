import { createHash, randomBytes } from 'node:crypto';
import type { CoreV1Event } from '@kubernetes/client-node';
import { apiVersionOf, HELM_CHART_KIND, type HelmChart } from '../src/api/index.js';
import { nextEventWrite, occurrenceMark, type Occurrence } from '../src/build/event-series.js';
import { occurrenceAnnotationKey } from '../src/build/labels.js';
import { isNotFound } from '../src/kube/client.js';
import { retryOnConflict } from '../src/kube/retry-on-conflict.js';
import { readChart } from './charts.js';
import { jobLogTail } from './failed-pods.js';
import type { ActivityDeps } from './deps.js';
import { setStatus } from './status.js';
import type { ChartEvent, ChartTarget } from './types.js';
import { ChartEventReason } from '../src/api/event-reasons.js';
import { FailedCondition } from '../src/api/reasons.js';

const component = 'helmflow';
const maxMessageBytes = 4096;

function eventBody(chart: HelmChart, target: ChartTarget, event: ChartEvent, name: string, now: Date): CoreV1Event {
  const { namespace } = target.ref;
  return {
    metadata: { name, namespace },
    involvedObject: {
      apiVersion: apiVersionOf(target.ref.group),
      kind: HELM_CHART_KIND,
      name: target.ref.name,
      namespace,
      uid: target.uid,
      resourceVersion: chart.metadata.resourceVersion,
    },
    type: event.type,
    reason: event.reason,
    message: truncate(event.message),
    source: { component },
    reportingComponent: component,
    reportingInstance: component,
    firstTimestamp: now,
    lastTimestamp: now,
    count: 1,
  };
}

/** An Event on the HelmChart, as `kubectl describe helmchart` shows it. */
export async function recordEvent(deps: ActivityDeps, target: ChartTarget, event: ChartEvent): Promise<void> {
  const chart = await readChart(deps, target);
  if (chart === undefined) return;
  const name = `${target.ref.name}.${randomBytes(8).toString('hex')}`;
  await deps.core.createNamespacedEvent({
    namespace: target.ref.namespace,
    body: eventBody(chart, target, event, name, new Date()),
  });
}

/**
 * The one Event of this chart and reason, counting `occurrence` once (see event-series.ts). Its name is derived
 * from the chart's uid and the reason, so every writer finds the same object; a concurrent write is read again.
 */
export async function recordRepeatedEvent(
  deps: ActivityDeps,
  target: ChartTarget,
  event: ChartEvent,
  occurrence: Occurrence,
): Promise<void> {
  const { namespace } = target.ref;
  const hash = createHash('sha256').update(`${target.uid}/${event.reason}`).digest('hex').slice(0, 16);
  const name = `${target.ref.name}.${hash}`;
  const markKey = occurrenceAnnotationKey(target.ref.group);
  await retryOnConflict(`Event ${namespace}/${name}`, async () => {
    const chart = await readChart(deps, target);
    if (chart === undefined) return;
    const existing = await readEvent(deps, namespace, name);
    const write = nextEventWrite(
      existing && { count: existing.count, mark: existing.metadata.annotations?.[markKey] },
      occurrence,
    );
    if (write.kind === 'none') return;
    const now = new Date();
    const body = eventBody(chart, target, event, name, now);
    body.metadata.annotations = { [markKey]: occurrenceMark(occurrence) };
    body.count = write.count;
    if (existing === undefined) {
      await deps.core.createNamespacedEvent({ namespace, body });
    } else {
      body.metadata.resourceVersion = existing.metadata.resourceVersion;
      body.firstTimestamp = existing.firstTimestamp ?? now;
      await deps.core.replaceNamespacedEvent({ name, namespace, body });
    }
  });
}

async function readEvent(deps: ActivityDeps, namespace: string, name: string): Promise<CoreV1Event | undefined> {
  try {
    return await deps.core.readNamespacedEvent({ name, namespace });
  } catch (err) {
    if (isNotFound(err)) return undefined;
    throw err;
  }
}

function truncate(text: string): string {
  if (Buffer.byteLength(text) <= maxMessageBytes) return text;
  return '…' + Buffer.from(text).subarray(-maxMessageBytes).toString('utf8');
}

export async function recordInstallFailure(
  deps: ActivityDeps,
  target: ChartTarget,
  jobName: string,
  reason: string,
): Promise<void> {
  const { namespace } = target.ref;
  const where = `kubectl logs -n ${namespace} job/${jobName}`;
  await setStatus(deps, target, {
    jobName,
    phase: 'Failed',
    conditions: [
      { type: FailedCondition.type, status: 'True', reason, message: `${jobName} failed (${reason}); see ${where}` },
    ],
  });
  const tail = await jobLogTail(deps, namespace, jobName);
  await recordEvent(deps, target, {
    type: 'Warning',
    reason: ChartEventReason.InstallFailed,
    message: `${jobName} failed (${reason}). Last lines of ${where}:\n${tail}`,
  });
}

export async function recordUninstallFailure(
  deps: ActivityDeps,
  target: ChartTarget,
  jobName: string,
  reason: string,
): Promise<void> {
  const chart = await readChart(deps, target);
  const release = target.ref.name;
  const releaseNamespace = chart?.spec.targetNamespace || target.ref.namespace;
  const tail = await jobLogTail(deps, target.ref.namespace, jobName);
  await recordEvent(deps, target, {
    type: 'Warning',
    reason: ChartEventReason.UninstallFailed,
    message:
      `helm uninstall of release ${release} in namespace ${releaseNamespace} did not finish (${reason}); ` +
      `the finalizer is released anyway and the release may remain: remove it with ` +
      `helm uninstall ${release} -n ${releaseNamespace}. Last lines of ${jobName}:\n${tail}`,
  });
}
