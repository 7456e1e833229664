import type { BatchV1Api, CoreV1Api, V1Job, V1Pod } from '@kubernetes/client-node';
import { createHash } from 'node:crypto';
import type { Logger } from 'pino';
import { isNotFound } from '../kube/client.js';
import { recordPodEvent } from './events.js';
import { controllingJob, helmJobPodVerdict } from './helm-job-pod.js';

/** The reason kube-scheduler gives a pod no node would take. */
export const NOT_SCHEDULED_REASON = 'FailedScheduling';

/**
 * Applies the rule of helm-job-pod.ts to the pods the native node sees: reads the controlling Job, and tells a
 * refused pod why in one Warning Event (named after the pod's UID, so a re-check or a restart of the node does
 * not say it again). `admits` answers undefined when the Job could not be read: the caller asks again later.
 */
export class PodAdmission {
  private readonly admitted = new Set<string>();
  private readonly refused = new Set<string>();

  constructor(
    private readonly core: CoreV1Api,
    private readonly batch: BatchV1Api,
    private readonly nodeName: string,
    private readonly log: Logger,
  ) {}

  async admits(pod: V1Pod): Promise<boolean | undefined> {
    const uid = pod.metadata?.uid ?? '';
    if (this.admitted.has(uid)) return true;
    if (this.refused.has(uid)) return false;
    let job: V1Job | undefined;
    const owner = controllingJob(pod);
    if (owner !== undefined) {
      try {
        job = await this.batch.readNamespacedJob({ name: owner.name, namespace: pod.metadata?.namespace ?? '' });
      } catch (err) {
        if (!isNotFound(err)) {
          this.log.warn({ err: (err as Error).message }, 'could not read the Job of a pod; will check again');
          return undefined;
        }
      }
    }
    const verdict = helmJobPodVerdict(pod, job);
    if (verdict.runs) {
      this.admitted.add(uid);
      return true;
    }
    this.refused.add(uid);
    const name = `${pod.metadata?.namespace ?? ''}/${pod.metadata?.name ?? ''}`;
    this.log.warn({ pod: name, why: verdict.why }, 'not running a pod that is not a helm Job pod');
    const message = `the native node ${this.nodeName} runs only helmflow's helm Job pods: ${verdict.why}`;
    await recordPodEvent(
      this.core,
      this.log,
      pod,
      this.nodeName,
      'Warning',
      NOT_SCHEDULED_REASON,
      message,
      onceName(pod),
    );
    return false;
  }

  forget(uid: string): void {
    this.admitted.delete(uid);
    this.refused.delete(uid);
  }
}

function onceName(pod: V1Pod): string {
  const digest = createHash('sha256')
    .update(pod.metadata?.uid ?? '')
    .digest('hex')
    .slice(0, 16);
  return `${(pod.metadata?.name ?? 'pod').slice(0, 200)}.not-helm-job.${digest}`;
}
