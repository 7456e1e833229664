import type { CoreV1Api, V1Pod } from '@kubernetes/client-node';
import type { Logger } from 'pino';
import { errorStatus } from '../kube/client.js';

/** What became of one attempt to bind a pod to the node. */
export type BindOutcome = 'bound' | 'settled' | 'retry';

/**
 * What a failed binding means. The apiserver answering no (4xx: already bound, gone, being deleted) settles the
 * pod: the informer's next event says what it became. No answer at all, or a 429 or 5xx (the apiserver
 * restarting or overloaded), settles nothing, and no event will come for a pod that did not change, so the
 * caller must try again or the pod stays Pending for good.
 */
export function bindFailure(err: unknown): Exclude<BindOutcome, 'bound'> {
  const status = errorStatus(err);
  return status === undefined || status === 429 || status >= 500 ? 'retry' : 'settled';
}

/** Binds `pod` to `nodeName`, as kube-scheduler would, and says whether it must be tried again. */
export async function bindPod(core: CoreV1Api, pod: V1Pod, nodeName: string, log: Logger): Promise<BindOutcome> {
  const { name = '', namespace = '' } = pod.metadata ?? {};
  try {
    await core.createNamespacedPodBinding({
      name,
      namespace,
      body: { metadata: { name, namespace }, target: { apiVersion: 'v1', kind: 'Node', name: nodeName } },
    });
    log.info({ pod: `${namespace}/${name}` }, 'bound pod');
    return 'bound';
  } catch (err) {
    const outcome = bindFailure(err);
    if (outcome === 'retry')
      log.warn({ pod: `${namespace}/${name}`, err: (err as Error).message }, 'could not bind pod; will try again');
    else log.debug({ pod: `${namespace}/${name}`, err: (err as Error).message }, 'binding skipped');
    return outcome;
  }
}
