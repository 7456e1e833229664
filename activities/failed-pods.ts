import type { V1Pod } from '@kubernetes/client-node';
import type { ActivityDeps } from './deps.js';

const tailLineCount = 20;

/** A failed pod of a Job: its name and the exit code of its container (undefined when it never ran). */
export interface FailedPod {
  name: string;
  exitCode: number | undefined;
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
  const terminated = failed.status?.containerStatuses?.find((c) => c.state?.terminated !== undefined);
  return { name: failed.metadata.name, exitCode: terminated?.state?.terminated?.exitCode };
}

/** The last lines a pod printed; a sentence saying why when they cannot be read. */
export async function podLogTail(deps: ActivityDeps, namespace: string, podName: string): Promise<string> {
  try {
    const log = await deps.core.readNamespacedPodLog({ name: podName, namespace, tailLines: tailLineCount });
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
    return await podLogTail(deps, namespace, newest.metadata.name);
  } catch (err) {
    return `(log unavailable: ${(err as Error).message})`;
  }
}
