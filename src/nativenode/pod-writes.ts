import type { CoreV1Api, V1Pod } from '@kubernetes/client-node';
import type { Logger } from 'pino';
import { apiErrorOf, classifyApiError } from '../kube/api-errors.js';
import { isConflict } from '../kube/client.js';

/** What became of one write the native node makes to a pod object (a binding, the last step of a deletion). */
export type PodWriteOutcome = 'done' | 'settled' | 'retry';

/**
 * What a failed binding or deletion means. A conflict is someone else's answer (the pod is bound already, or the
 * name now holds another pod), and so is any other permanent error: the informer's next event says what the pod
 * became. A transient one (no answer at all while the apiserver restarts, a 429, a 5xx) settles nothing, and no
 * event will come for a pod that did not change, so the caller must try again or the pod stays as it is for good.
 */
export function podWriteFailure(err: unknown): Exclude<PodWriteOutcome, 'done'> {
  if (isConflict(err)) return 'settled';
  return classifyApiError(apiErrorOf(err)).kind === 'transient' ? 'retry' : 'settled';
}

const podKey = (pod: V1Pod) => `${pod.metadata?.namespace ?? ''}/${pod.metadata?.name ?? ''}`;

async function podWrite(
  what: string,
  pod: V1Pod,
  log: Logger,
  write: () => Promise<unknown>,
): Promise<PodWriteOutcome> {
  try {
    await write();
    return 'done';
  } catch (err) {
    const outcome = podWriteFailure(err);
    const fields = { pod: podKey(pod), err: (err as Error).message };
    if (outcome === 'retry') log.warn(fields, `could not ${what}; will try again`);
    else log.debug(fields, `${what} skipped`);
    return outcome;
  }
}

/** Binds `pod` to `nodeName`, as kube-scheduler would. */
export async function bindPod(core: CoreV1Api, pod: V1Pod, nodeName: string, log: Logger): Promise<PodWriteOutcome> {
  const { name = '', namespace = '' } = pod.metadata ?? {};
  const outcome = await podWrite('bind pod', pod, log, () =>
    core.createNamespacedPodBinding({
      name,
      namespace,
      body: { metadata: { name, namespace }, target: { apiVersion: 'v1', kind: 'Node', name: nodeName } },
    }),
  );
  if (outcome === 'done') log.info({ pod: podKey(pod) }, 'bound pod');
  return outcome;
}

/**
 * Lets a pod marked for deletion go, once its processes are stopped (a kubelet's last word on it): deleted with
 * no grace, and only this pod (its uid), never a new one of the same name.
 */
export function finishPodDeletion(core: CoreV1Api, pod: V1Pod, log: Logger): Promise<PodWriteOutcome> {
  const { name = '', namespace = '', uid = '' } = pod.metadata ?? {};
  return podWrite('finish deleting pod', pod, log, () =>
    core.deleteNamespacedPod({
      name,
      namespace,
      gracePeriodSeconds: 0,
      body: { gracePeriodSeconds: 0, preconditions: { uid } },
    }),
  );
}
