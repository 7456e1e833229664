import type { V1Job, V1Pod } from '@kubernetes/client-node';
import { waitFor } from '../../../src/devstack/wait.js';
import { clients } from './kube.js';

/** A Job whose single container runs `command` on the native node. */
export function commandJob(
  name: string,
  command: string[],
  extra: {
    backoffLimit?: number;
    activeDeadlineSeconds?: number;
    restartPolicy?: 'Never' | 'OnFailure';
    serviceAccountName?: string;
  } = {},
): V1Job {
  return {
    metadata: { name },
    spec: {
      backoffLimit: extra.backoffLimit ?? 0,
      activeDeadlineSeconds: extra.activeDeadlineSeconds,
      template: {
        spec: {
          restartPolicy: extra.restartPolicy ?? 'Never',
          serviceAccountName: extra.serviceAccountName,
          containers: [{ name: 'main', image: 'native', command }],
        },
      },
    },
  };
}

type JobEnd = { type: 'Complete' | 'Failed'; reason: string | undefined };

/** Waits until the Job has a Complete or Failed condition and returns which, with its reason. */
export async function jobFinished(namespace: string, name: string, timeoutMs = 90_000): Promise<JobEnd> {
  const { batch } = clients();
  return waitFor(
    `job ${namespace}/${name} to finish`,
    async () => {
      const job = await batch.readNamespacedJob({ name, namespace });
      const end = job.status?.conditions?.find(
        (c) => (c.type === 'Complete' || c.type === 'Failed') && c.status === 'True',
      );
      return end === undefined ? undefined : { type: end.type as JobEnd['type'], reason: end.reason };
    },
    { timeoutMs, intervalMs: 300 },
  );
}

export async function jobPods(namespace: string, name: string): Promise<V1Pod[]> {
  const pods = await clients().core.listNamespacedPod({ namespace, labelSelector: `job-name=${name}` });
  return pods.items;
}
