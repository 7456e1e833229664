import type { KubernetesObject, V1Job } from '@kubernetes/client-node';
import { MockActivityEnvironment } from '@temporalio/testing';
import pino from 'pino';
import type { ActivityDeps } from '../../activities/deps.js';
import { JobSlots } from '../../activities/job-slot-ledger.js';
import { prepareInstall } from '../../activities/prepare.js';
import type { ChartTarget, Preparation } from '../../activities/types.js';
import type { HelmChart } from '../../src/api/index.js';
import { crdYaml, tarGz } from './support/archive.js';
import { helmChart } from './support/charts.js';
import { attemptAnnotationKey, digestAnnotationKey, uidLabelKey } from '../../src/build/labels.js';

const target: ChartTarget = {
  ref: { group: 'helm.k3sm.io', namespace: 'kube-system', name: 'podinfo' },
  uid: '0b8e6a52-5d1c-4f3e-9b7a-2f0c1d9e8a71',
};
const valid = helmChart({ repo: 'https://charts.example.com', chart: 'podinfo' }, { generation: 3 });
/** What an edit landing after the first read would show: a repo that validation refuses. */
const edited = helmChart({ repo: 'http://insecure.example.com', chart: 'podinfo' }, { generation: 4 });

/** An apiserver stand-in that answers the first read of the HelmChart with `first` and every later one with `later`. */
function fakeCluster(first: HelmChart, later: HelmChart, { release = false } = {}) {
  const seen = {
    chartReads: 0,
    releaseLookups: 0,
    applied: [] as string[],
    jobs: [] as V1Job[],
    statuses: [] as unknown[],
    events: [] as { reason?: string; type?: string; message?: string }[],
  };
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
      patchNamespacedCustomObjectStatus: async ({ body }: { body: { status: unknown } }) => {
        seen.statuses.push(body.status);
      },
    },
    core: {
      readNamespacedSecret: async () => Promise.reject(notFound),
      readNamespacedEvent: async () => Promise.reject(notFound),
      createNamespacedEvent: async ({ body }: { body: { reason?: string; type?: string; message?: string } }) => {
        seen.events.push(body);
        return body;
      },
      // helm's release records (owner=helm,name=<release>): present when the chart was installed before.
      listNamespacedSecret: async () => {
        seen.releaseLookups += 1;
        return { items: release ? [{ metadata: { name: 'sh.helm.release.v1.podinfo.v1' } }] : [] };
      },
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
    jobs: { get: async () => undefined, start: async () => undefined, list: () => [] },
    slots: new JobSlots(32),
  } as unknown as ActivityDeps;
  return { deps, seen };
}

describe('prepareInstall', () => {
  it('reads the HelmChart once and builds every object, the Job included, from that validated read', async () => {
    const { deps, seen } = fakeCluster(valid, edited);
    const result = await new MockActivityEnvironment().run(prepareInstall, deps, target, 1);
    expect(result).toMatchObject({ state: 'started', generation: 3, job: { jobName: 'helm-install-podinfo' } });
    expect(seen.chartReads).toBe(1);
    // JobCreated is written from the same read, in the same step: no step of its own in the workflow's history.
    expect(seen.statuses).toEqual([
      expect.objectContaining({
        jobName: 'helm-install-podinfo',
        phase: 'Installing',
        observedGeneration: 3,
        conditions: [expect.objectContaining({ type: 'JobCreated', status: 'True' })],
      }),
    ]);
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
    expect(seen.statuses).toEqual([]);
  });

  it('before an upgrade of a chart whose CRDs are not known to be none, creates helm-crds-<name> instead of the install Job', async () => {
    const { deps, seen } = fakeCluster(valid, valid, { release: true });
    const result: Preparation = await new MockActivityEnvironment().run(prepareInstall, deps, target, 2);
    expect(result).toMatchObject({ state: 'crdsCheck', generation: 3, job: { jobName: 'helm-crds-podinfo' } });
    expect(seen.jobs.map((j) => j.metadata?.name)).toEqual(['helm-crds-podinfo']);
    expect(seen.jobs[0]?.spec?.template.spec?.containers[0]?.args?.slice(0, 2)).toEqual(['show', 'crds']);
    expect(seen.statuses).toEqual([expect.objectContaining({ jobName: 'helm-crds-podinfo', phase: 'Installing' })]);

    // Called again once they are compared at that digest: the install Job.
    const digest = result.state === 'crdsCheck' ? result.job.digest : '';
    const next = await new MockActivityEnvironment().run(prepareInstall, deps, target, 2, {
      chartCrds: true,
      checkedDigest: digest,
    });
    expect(next).toMatchObject({ state: 'started', job: { jobName: 'helm-install-podinfo' } });
  });

  it('looks nothing up and compares nothing first for a chart known to have no CRDs, nor for a first install', async () => {
    const upgrade = fakeCluster(valid, valid, { release: true });
    const none = await new MockActivityEnvironment().run(prepareInstall, upgrade.deps, target, 2, { chartCrds: false });
    expect(none).toMatchObject({ state: 'started', job: { jobName: 'helm-install-podinfo' } });
    expect(upgrade.seen.releaseLookups).toBe(0);

    const first = fakeCluster(valid, valid, { release: false });
    const installed = await new MockActivityEnvironment().run(prepareInstall, first.deps, target, 1);
    expect(installed).toMatchObject({ state: 'started', job: { jobName: 'helm-install-podinfo' } });
    expect(first.seen.releaseLookups).toBe(1);
  });

  describe('a chartContent chart: its crds/ read from the archive, before any Job', () => {
    // The cluster has no CRD at all (objects.read answers 404): absent before a first install, behind before an upgrade.
    const contentChart = async (crds: boolean) => {
      const files: Record<string, string> = { 'demo/Chart.yaml': 'apiVersion: v2\nname: demo\nversion: 0.1.0\n' };
      if (crds) files['demo/crds/widgets.yaml'] = crdYaml('widgets');
      const chartContent = (await tarGz(files)).toString('base64');
      return helmChart({ chartContent }, { generation: 5 });
    };

    it('fails an upgrade that would leave a CRD behind before creating anything, and says so', async () => {
      const chart = await contentChart(true);
      const { deps, seen } = fakeCluster(chart, chart, { release: true });
      const result: Preparation = await new MockActivityEnvironment().run(prepareInstall, deps, target, 2);
      expect(result).toMatchObject({ state: 'crdsStale', generation: 5 });
      expect(result.state === 'crdsStale' ? result.behind : '').toContain('widgets.example.com: not in the cluster');
      expect(seen.jobs).toEqual([]);
      expect(seen.applied).toEqual([]);
      expect(seen.statuses).toEqual([
        { conditions: [expect.objectContaining({ type: 'CRDsCurrent', status: 'False', reason: 'CRDsStale' })] },
      ]);
      expect(seen.events).toEqual([expect.objectContaining({ type: 'Warning', reason: 'HelmChartCRDsStale' })]);
    });

    it('lets a first install create its absent CRDs: the install Job, which runs no helm show crds', async () => {
      const chart = await contentChart(true);
      const { deps, seen } = fakeCluster(chart, chart, { release: false });
      const result = await new MockActivityEnvironment().run(prepareInstall, deps, target, 1);
      expect(result).toMatchObject({ state: 'started', job: { jobName: 'helm-install-podinfo' } });
      const init = seen.jobs[0]?.spec?.template.spec?.initContainers?.map((c) => c.name);
      expect(init).toEqual(['preflight']);
      expect(seen.events).toEqual([]);
    });

    it('costs no lookup for a chart without crds/, even on upgrade', async () => {
      const chart = await contentChart(false);
      const { deps, seen } = fakeCluster(chart, chart, { release: true });
      const result = await new MockActivityEnvironment().run(prepareInstall, deps, target, 2, { chartCrds: true });
      expect(result).toMatchObject({ state: 'started', job: { jobName: 'helm-install-podinfo' } });
      expect(seen.releaseLookups).toBe(0);
      expect(seen.chartReads).toBe(1);
    });
  });

  it('takes the last slot before applying anything: of two charts prepared at once, one applies and the other waits', async () => {
    const slots = new JobSlots(1);
    const prepare = async (name: string) => {
      const chart = helmChart(valid.spec, { name, generation: 3, uid: `uid-${name}` });
      const { deps, seen } = fakeCluster(chart, chart);
      Object.assign(deps, { slots });
      const result: Preparation = await new MockActivityEnvironment().run(
        prepareInstall,
        deps,
        {
          ref: { ...target.ref, name },
          uid: `uid-${name}`,
        },
        1,
      );
      return { state: result.state, applied: seen.applied };
    };
    const [a, b] = await Promise.all([prepare('a'), prepare('b')]);
    expect([a.state, b.state].sort()).toEqual(['noSlot', 'started']);
    const waiting = a.state === 'noSlot' ? a : b;
    expect(waiting.applied).toEqual([]);
  });

  it('holds the slot of the Job it created only until the watch shows that Job, which then counts it', async () => {
    const slots = new JobSlots(1);
    const { deps } = fakeCluster(valid, valid);
    Object.assign(deps, { slots });
    const result = await new MockActivityEnvironment().run(prepareInstall, deps, target, 1);
    expect(result).toMatchObject({ state: 'started', job: { jobName: 'helm-install-podinfo', jobUid: 'job-uid' } });
    const other = 'kube-system/helm-install-other';
    expect(slots.take({ running: [], seen: new Set() }, other, Date.now())).toBe(false);
    // The watch shows the Job ended (a tiny chart's takes about 2 s): the next chart has its slot at once.
    expect(slots.take({ running: [], seen: new Set(['job-uid']) }, other, Date.now())).toBe(true);
  });

  it('applies nothing and creates no Job while --max-running-jobs install Jobs run: says so once, and returns noSlot', async () => {
    const { deps, seen } = fakeCluster(valid, valid);
    const running = {
      metadata: {
        name: 'helm-install-other',
        namespace: 'apps',
        labels: { 'helmcharts.helm.k3sm.io/action': 'install' },
      },
      status: { active: 1 },
    };
    Object.assign(deps, { slots: new JobSlots(1), jobs: { start: async () => undefined, list: () => [running] } });
    const result = await new MockActivityEnvironment().run(prepareInstall, deps, target, 1);
    // First in line: the workflow gives its slot wait the short heartbeat timeout.
    expect(result).toEqual({ state: 'noSlot', generation: 3, jobName: 'helm-install-podinfo', nearFront: true });
    expect(seen.jobs).toEqual([]);
    // Its identity and values are applied once, when it is called again with a slot free, not now and again then.
    expect(seen.applied).toEqual([]);
    expect(seen.statuses).toEqual([
      { conditions: [expect.objectContaining({ type: 'JobCreated', status: 'False', reason: 'WaitingForJobSlot' })] },
    ]);
  });

  it("leaves this attempt's Job alone when an earlier try built it from an older spec, and ends the attempt", async () => {
    // The earlier try created helm-install-podinfo for attempt 2 from generation 2, then failed (the apiserver went
    // away); the spec changed before this try read it. A second Job under attempt 2 is what the chaos run caught.
    const { deps, seen } = fakeCluster(valid, valid);
    const earlier = {
      metadata: {
        name: 'helm-install-podinfo',
        namespace: 'kube-system',
        uid: 'earlier-job',
        labels: { [uidLabelKey('helm.k3sm.io')]: target.uid },
        annotations: { [attemptAnnotationKey('helm.k3sm.io')]: '2', [digestAnnotationKey('helm.k3sm.io')]: 'older' },
      },
      spec: { activeDeadlineSeconds: 600 },
    };
    Object.assign(deps, { jobs: { get: async () => earlier, start: async () => undefined, list: () => [] } });
    expect(await new MockActivityEnvironment().run(prepareInstall, deps, target, 2)).toEqual({ state: 'gone' });
    expect(seen.jobs).toEqual([]);
    // The next attempt, for the spec this try read, replaces it under a new number.
    const deleted: string[] = [];
    let gets = 0;
    Object.assign(deps, {
      jobs: { get: async () => (gets++ === 0 ? earlier : undefined), start: async () => undefined, list: () => [] },
    });
    Object.assign(deps.batch, { deleteNamespacedJob: async ({ name }: { name: string }) => deleted.push(name) });
    const next = await new MockActivityEnvironment().run(prepareInstall, deps, target, 3);
    expect(next).toMatchObject({ state: 'started', job: { jobName: 'helm-install-podinfo' } });
    expect(deleted).toEqual(['helm-install-podinfo']);
    expect(seen.jobs.map((job) => job.metadata?.annotations?.[attemptAnnotationKey('helm.k3sm.io')])).toEqual(['3']);
  });
});
