import type { CoreV1Api, V1Pod } from '@kubernetes/client-node';
import { randomBytes } from 'node:crypto';
import type { Logger } from 'pino';
import { isConflict } from '../kube/client.js';
import { nodeComponent } from './options.js';

/**
 * Records an Event on a pod, as a kubelet does; a failure to record is logged, never fatal. With `name`, the
 * Event is said once: a second write of the same name is refused by the apiserver (AlreadyExists) and dropped.
 */
export async function recordPodEvent(
  core: CoreV1Api,
  log: Logger,
  pod: V1Pod,
  nodeName: string,
  type: 'Normal' | 'Warning',
  reason: string,
  message: string,
  name?: string,
): Promise<void> {
  const namespace = pod.metadata?.namespace ?? 'default';
  const now = new Date();
  try {
    await core.createNamespacedEvent({
      namespace,
      body: {
        metadata: { name: name ?? `${pod.metadata?.name ?? 'pod'}.${randomBytes(8).toString('hex')}`, namespace },
        involvedObject: {
          apiVersion: 'v1',
          kind: 'Pod',
          name: pod.metadata?.name,
          namespace,
          uid: pod.metadata?.uid,
        },
        type,
        reason,
        message,
        source: { component: nodeComponent, host: nodeName },
        reportingComponent: nodeComponent,
        reportingInstance: nodeName,
        firstTimestamp: now,
        lastTimestamp: now,
        count: 1,
      },
    });
  } catch (err) {
    if (name !== undefined && isConflict(err)) return;
    log.warn({ err, reason }, 'could not record an event');
  }
}
