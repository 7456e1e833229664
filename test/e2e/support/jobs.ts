import type { V1Job, V1Pod } from '@kubernetes/client-node';
import { DEFAULT_API_GROUP } from '../../../src/api/index.js';
import { actionLabelKey, chartLabels } from '../../../src/build/labels.js';
import { ownerReference } from '../../../src/build/owner.js';
import { waitFor } from '../../../src/lib/wait.js';
import { apply, readHelmChart } from './helmcharts.js';
import { clients } from './kube.js';

/**
 * Makes a test Job one the native node runs, the way a real helm install Job is
 * (src/nativenode/helm-job-pod.ts): a HelmChart of the Job's name controls it and it carries the labels
 * src/build/labels.ts puts on install Jobs. The HelmChart is never reconciled: these tests run no controller.
 * Needs the helm.k3sm.io CRDs (support/crds.ts installCrds).
 */
export async function asHelmJob(namespace: string, job: V1Job): Promise<V1Job> {
  const name = job.metadata?.name ?? '';
  const group = DEFAULT_API_GROUP;
  apply({
    apiVersion: `${group}/v1`,
    kind: 'HelmChart',
    metadata: { name, namespace },
    spec: { chart: 'oci://registry.invalid/native-node-test' },
  });
  const chart = await readHelmChart(namespace, name);
  if (chart === undefined) throw new Error(`HelmChart ${namespace}/${name} was not created`);
  const labels = { ...chartLabels(chart, group), [actionLabelKey(group)]: 'install' };
  const copy = structuredClone(job);
  const meta = (copy.metadata ??= {});
  meta.labels = Object.assign({}, meta.labels, labels);
  meta.ownerReferences = [ownerReference(chart, group)];
  const template = (copy.spec ??= { template: {} }).template;
  const podMeta = (template.metadata ??= {});
  podMeta.labels = Object.assign({}, podMeta.labels, labels);
  return copy;
}

/** Creates `job` as a helm Job (asHelmJob) in `namespace`. */
export async function createHelmJob(namespace: string, job: V1Job): Promise<void> {
  await clients().batch.createNamespacedJob({ namespace, body: await asHelmJob(namespace, job) });
}

/** A Job whose single container runs `command` on the native node. */
export function commandJob(
  name: string,
  command: string[],
  extra: {
    backoffLimit?: number;
    activeDeadlineSeconds?: number;
    restartPolicy?: 'Never' | 'OnFailure';
    serviceAccountName?: string;
    terminationGracePeriodSeconds?: number;
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
          terminationGracePeriodSeconds: extra.terminationGracePeriodSeconds,
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

/** What a Job and its pods last said, for a wait that timed out on them (never throws: it only explains). */
export async function jobSaid(namespace: string, name: string): Promise<string> {
  try {
    const job = await clients().batch.readNamespacedJob({ name, namespace });
    const conditions = (job.status?.conditions ?? []).filter((c) => c.status === 'True').map((c) => c.type);
    const pods = (await jobPods(namespace, name)).map((p) => `${p.metadata?.name ?? ''} ${p.status?.phase ?? ''}`);
    return `Job ${name}: active ${String(job.status?.active ?? 0)}, failed ${String(job.status?.failed ?? 0)}, conditions [${conditions.join(', ')}]; pods [${pods.join(', ')}]`;
  } catch (err) {
    return `Job ${name}: could not be read (${(err as Error).message})`;
  }
}
