import type { KubernetesObject, V1Job } from '@kubernetes/client-node';
import { MockActivityEnvironment } from '@temporalio/testing';
import pino from 'pino';
import type { ActivityDeps } from '../../activities/deps.js';
import { prepareInstall } from '../../activities/prepare.js';
import type { ChartTarget } from '../../activities/types.js';
import type { HelmChart } from '../../src/api/index.js';
import { helmChart } from './support/charts.js';

const target: ChartTarget = {
  ref: { group: 'helm.k3sm.io', namespace: 'kube-system', name: 'podinfo' },
  uid: '0b8e6a52-5d1c-4f3e-9b7a-2f0c1d9e8a71',
};
const valid = helmChart({ repo: 'https://charts.example.com', chart: 'podinfo' }, { generation: 3 });
/** What an edit landing after the first read would show: a repo that validation refuses. */
const edited = helmChart({ repo: 'http://insecure.example.com', chart: 'podinfo' }, { generation: 4 });

/** An apiserver stand-in that answers the first read of the HelmChart with `first` and every later one with `later`. */
function fakeCluster(first: HelmChart, later: HelmChart) {
  const seen = { chartReads: 0, applied: [] as string[], jobs: [] as V1Job[] };
  const notFound = Object.assign(new Error('not found'), { code: 404 });
  const deps = {
    group: 'helm.k3sm.io',
    build: {},
    log: pino({ level: 'silent' }),
    custom: {
      getNamespacedCustomObject: async ({ plural }: { plural: string }) => {
        if (plural !== 'helmcharts') throw notFound;
        seen.chartReads += 1;
        return seen.chartReads === 1 ? first : later;
      },
    },
    core: {
      readNamespacedSecret: async () => Promise.reject(notFound),
      // No helm release stored yet: nothing to unlock.
      listNamespacedSecret: async () => ({ items: [] }),
    },
    objects: {
      patch: async (object: KubernetesObject) => {
        seen.applied.push(`${object.kind}/${object.metadata?.name}`);
        return object;
      },
      // Absent objects are created (never taken over: activities/objects.ts claims them).
      create: async (object: KubernetesObject) => {
        seen.applied.push(`${object.kind}/${object.metadata?.name}`);
        return object;
      },
      read: async () => Promise.reject(notFound),
    },
    rbac: { listClusterRoleBinding: async () => ({ items: [] }) },
    batch: {
      createNamespacedJob: async ({ body }: { body: V1Job }) => {
        seen.jobs.push(body);
        if (body.metadata !== undefined) body.metadata.uid = 'job-uid';
        return body;
      },
    },
    jobs: { get: async () => undefined },
  } as unknown as ActivityDeps;
  return { deps, seen };
}

describe('prepareInstall', () => {
  it('reads the HelmChart once and builds every object, the Job included, from that validated read', async () => {
    const { deps, seen } = fakeCluster(valid, edited);
    const result = await new MockActivityEnvironment().run(prepareInstall, deps, target, 1);
    expect(result).toMatchObject({ state: 'started', generation: 3, job: { jobName: 'helm-install-podinfo' } });
    expect(seen.chartReads).toBe(1);
    expect(seen.applied).toEqual([
      'ServiceAccount/helm-podinfo',
      'ClusterRoleBinding/helm-kube-system-podinfo',
      'Secret/chart-values-podinfo',
    ]);
    const job = JSON.stringify(seen.jobs);
    expect(job).toContain('https://charts.example.com');
    expect(job).not.toContain('insecure.example.com');
  });

  it('creates nothing for a chart that validation refuses, and says why', async () => {
    const { deps, seen } = fakeCluster(edited, valid);
    const result = await new MockActivityEnvironment().run(prepareInstall, deps, target, 1);
    expect(result).toMatchObject({ state: 'refused', generation: 4, refusal: { reason: 'InsecureRepo' } });
    expect(seen.chartReads).toBe(1);
    expect(seen.applied).toEqual([]);
    expect(seen.jobs).toEqual([]);
  });
});
