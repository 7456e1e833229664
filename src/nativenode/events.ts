import type { CoreV1Api, V1Pod } from '@kubernetes/client-node';
import { randomBytes } from 'node:crypto';
import type { Logger } from 'pino';
import { nodeComponent } from './options.js';

/** Records an Event on a pod, as a kubelet does; a failure to record is logged, never fatal. */
export async function recordPodEvent(
  core: CoreV1Api,
  log: Logger,
  pod: V1Pod,
  nodeName: string,
  type: 'Normal' | 'Warning',
  reason: string,
  message: string,
): Promise<void> {
  const namespace = pod.metadata?.namespace ?? 'default';
  const now = new Date();
  try {
    await core.createNamespacedEvent({
      namespace,
      body: {
        metadata: { name: `${pod.metadata?.name ?? 'pod'}.${randomBytes(8).toString('hex')}`, namespace },
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
    log.warn({ err, reason }, 'could not record an event');
  }
}
