import { randomBytes } from 'node:crypto';
import { apiVersionOf, HELM_CHART_KIND } from '../src/api/index.js';
import { readChart } from './charts.js';
import type { ActivityDeps } from './deps.js';
import { setStatus } from './status.js';
import type { ChartEvent, ChartTarget } from './types.js';

const component = 'helmflow';
const tailLineCount = 20;
const maxMessageBytes = 4096;

/** An Event on the HelmChart, as `kubectl describe helmchart` shows it. */
export async function recordEvent(deps: ActivityDeps, target: ChartTarget, event: ChartEvent): Promise<void> {
  const chart = await readChart(deps, target);
  if (chart === undefined) return;
  const now = new Date();
  const { namespace, name } = target.ref;
  await deps.core.createNamespacedEvent({
    namespace,
    body: {
      metadata: { name: `${name}.${randomBytes(8).toString('hex')}`, namespace },
      involvedObject: {
        apiVersion: apiVersionOf(target.ref.group),
        kind: HELM_CHART_KIND,
        name,
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
    },
  });
}

function truncate(text: string): string {
  if (Buffer.byteLength(text) <= maxMessageBytes) return text;
  return '…' + Buffer.from(text).subarray(-maxMessageBytes).toString('utf8');
}

/**
 * The last lines the Job's newest pod printed. Read here and written straight to the Event, so helm's output
 * never passes through Temporal.
 */
async function logTail(deps: ActivityDeps, namespace: string, jobName: string): Promise<string> {
  try {
    const pods = await deps.core.listNamespacedPod({ namespace, labelSelector: `job-name=${jobName}` });
    const newest = [...pods.items].sort(
      (a, b) => (b.metadata?.creationTimestamp?.getTime() ?? 0) - (a.metadata?.creationTimestamp?.getTime() ?? 0),
    )[0];
    if (newest?.metadata?.name === undefined) return '(no pod left to read a log from)';
    const log = await deps.core.readNamespacedPodLog({
      name: newest.metadata.name,
      namespace,
      tailLines: tailLineCount,
    });
    return log.trim() === '' ? '(the pod printed nothing)' : log.trimEnd();
  } catch (err) {
    return `(log unavailable: ${(err as Error).message})`;
  }
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
    conditions: [{ type: 'Failed', status: 'True', reason, message: `${jobName} failed (${reason}); see ${where}` }],
  });
  const tail = await logTail(deps, namespace, jobName);
  await recordEvent(deps, target, {
    type: 'Warning',
    reason: 'HelmChartInstallFailed',
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
  const tail = await logTail(deps, target.ref.namespace, jobName);
  await recordEvent(deps, target, {
    type: 'Warning',
    reason: 'HelmChartUninstallFailed',
    message:
      `helm uninstall of release ${release} in namespace ${releaseNamespace} did not finish (${reason}); ` +
      `the finalizer is released anyway and the release may remain: remove it with ` +
      `helm uninstall ${release} -n ${releaseNamespace}. Last lines of ${jobName}:\n${tail}`,
  });
}
