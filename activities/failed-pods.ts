import type { V1Pod } from '@kubernetes/client-node';
import { PREFLIGHT_CONTAINER } from '../src/build/index.js';
import type { ActivityDeps } from './deps.js';

const tailLineCount = 20;

/** A failed pod of a Job: its name and the exit code of its container (undefined when it never ran). */
export interface FailedPod {
  name: string;
  exitCode: number | undefined;
  /** The init container that failed, if one did (its log says why; helm upgrade never ran). */
  container?: string;
  /** Set when the pod failed in pre-flight, so its install never started: the exit code and the log's tail. */
  preflight?: { exitCode: number; message: string | undefined };
}

/** The pre-flight init container's end, when it failed. */
export function failedPreflight(pod: V1Pod): FailedPod['preflight'] {
  const status = pod.status?.initContainerStatuses?.find((c) => c.name === PREFLIGHT_CONTAINER);
  const ended = status?.state?.terminated;
  if (ended === undefined || ended.exitCode === 0) return undefined;
  return { exitCode: ended.exitCode, message: ended.message };
}

/**
 * The init container that ended the pod, if one did: `preflight`, or `crds`, whose `helm show crds` is the first to
 * fetch the chart when pre-flight is skipped.
 */
function failedInitContainer(pod: V1Pod): { name: string; exitCode: number } | undefined {
  const failed = pod.status?.initContainerStatuses?.find((c) => (c.state?.terminated?.exitCode ?? 0) !== 0);
  const exitCode = failed?.state?.terminated?.exitCode;
  return failed === undefined || exitCode === undefined ? undefined : { name: failed.name, exitCode };
}

const newestFirst = (a: V1Pod, b: V1Pod) =>
  (b.metadata?.creationTimestamp?.getTime() ?? 0) - (a.metadata?.creationTimestamp?.getTime() ?? 0);

/** The pods of one Job (by its uid, so a replaced Job of the same name is never read), newest first. */
export async function podsOfJob(deps: ActivityDeps, namespace: string, jobName: string, jobUid?: string) {
  const pods = await deps.core.listNamespacedPod({ namespace, labelSelector: `job-name=${jobName}` });
  const ofJob = (pod: V1Pod) => jobUid === undefined || pod.metadata?.ownerReferences?.some((o) => o.uid === jobUid);
  return pods.items.filter(ofJob).sort(newestFirst);
}

/** The Job's most recent failed pod, if one is still there. */
export async function newestFailedPod(
  deps: ActivityDeps,
  namespace: string,
  job: { jobName: string; jobUid: string },
): Promise<FailedPod | undefined> {
  const pods = await podsOfJob(deps, namespace, job.jobName, job.jobUid);
  const failed = pods.find((pod) => pod.status?.phase === 'Failed');
  if (failed?.metadata?.name === undefined) return undefined;
  const preflight = failedPreflight(failed);
  if (preflight !== undefined) return { name: failed.metadata.name, exitCode: preflight.exitCode, preflight };
  const init = failedInitContainer(failed);
  if (init !== undefined) return { name: failed.metadata.name, exitCode: init.exitCode, container: init.name };
  const terminated = failed.status?.containerStatuses?.find((c) => c.state?.terminated !== undefined);
  return { name: failed.metadata.name, exitCode: terminated?.state?.terminated?.exitCode };
}

/** The last lines a pod (or one of its containers) printed; a sentence saying why when they cannot be read. */
export async function podLogTail(
  deps: ActivityDeps,
  namespace: string,
  podName: string,
  container?: string,
): Promise<string> {
  try {
    const log = await deps.core.readNamespacedPodLog({
      name: podName,
      namespace,
      tailLines: tailLineCount,
      ...(container === undefined ? {} : { container }),
    });
    return log.trim() === '' ? '(the pod printed nothing)' : log.trimEnd();
  } catch (err) {
    return `(log unavailable: ${(err as Error).message})`;
  }
}

/**
 * The last lines the Job's newest pod printed. Read here and written straight to the Event, so helm's output
 * never passes through Temporal.
 */
export async function jobLogTail(deps: ActivityDeps, namespace: string, jobName: string): Promise<string> {
  try {
    const newest = (await podsOfJob(deps, namespace, jobName))[0];
    if (newest?.metadata?.name === undefined) return '(no pod left to read a log from)';
    // A pod that failed in an init container (pre-flight, or crds) never started helm upgrade: that log says why.
    return await podLogTail(deps, namespace, newest.metadata.name, failedInitContainer(newest)?.name);
  } catch (err) {
    return `(log unavailable: ${(err as Error).message})`;
  }
}
