import pino from 'pino';
import type { ActivityDeps } from '../../activities/deps.js';
import { mergeConditions, releaseFinalizer, setStatus } from '../../activities/status.js';
import type { ChartTarget } from '../../activities/types.js';
import type { ApiGroup, HelmChart, HelmChartCondition } from '../../src/api/index.js';
import { K3S_FINALIZER } from '../../src/api/k3s.js';
import { UNINSTALL_FINALIZER } from '../../src/api/finalizer.js';
import { helmChart } from './support/charts.js';
import { apiError } from './support/api-error.js';

const target: ChartTarget = {
  ref: { group: 'helm.k3sm.io', namespace: 'kube-system', name: 'podinfo' },
  uid: '0b8e6a52-5d1c-4f3e-9b7a-2f0c1d9e8a71',
};

/**
 * One HelmChart kept as the apiserver keeps it: a status patch carrying a resourceVersion other than the stored
 * one is refused with 409, and each write moves it. `beforePatch` runs a write of another client first.
 */
function fakeChart(chart: HelmChart, group: ApiGroup = 'helm.k3sm.io') {
  let stored = structuredClone(chart);
  stored.metadata.resourceVersion = '1';
  const seen = { reads: 0, patches: [] as unknown[], beforePatch: [] as ((c: HelmChart) => HelmChart)[] };
  const bump = (next: HelmChart) => {
    next.metadata.resourceVersion = String(Number(next.metadata.resourceVersion) + 1);
    stored = next;
  };
  const deps = {
    group,
    log: pino({ level: 'silent' }),
    custom: {
      getNamespacedCustomObject: async () => {
        seen.reads += 1;
        return structuredClone(stored);
      },
      patchNamespacedCustomObjectStatus: async ({
        body,
      }: {
        body: { metadata: { resourceVersion?: string }; status: HelmChart['status'] };
      }) => {
        const other = seen.beforePatch.shift();
        if (other !== undefined) bump(other(structuredClone(stored)));
        seen.patches.push(body);
        if (body.metadata.resourceVersion !== stored.metadata.resourceVersion) throw apiError(409);
        bump({ ...structuredClone(stored), status: { ...stored.status, ...body.status } });
      },
      patchNamespacedCustomObject: async ({ body }: { body: unknown }) => {
        seen.patches.push(body);
      },
    },
  } as unknown as ActivityDeps;
  return { deps, seen, stored: () => stored };
}

const condition = (type: string, status: 'True' | 'False', at: string): HelmChartCondition => ({
  type,
  status,
  reason: 'Because',
  message: '',
  lastTransitionTime: at,
});

describe('mergeConditions', () => {
  const jobCreated = condition('JobCreated', 'True', 't0');
  const before = [jobCreated, condition('Installed', 'False', 't0')];

  it.each<[string, Parameters<typeof mergeConditions>[1], HelmChartCondition[]]>([
    [
      'keeps the transition time when the status stays',
      [{ type: 'Installed', status: 'False', reason: 'StillInstalling', message: 'm' }],
      [
        jobCreated,
        { type: 'Installed', status: 'False', reason: 'StillInstalling', message: 'm', lastTransitionTime: 't0' },
      ],
    ],
    [
      'moves it when the status changes',
      [{ type: 'Installed', status: 'True', reason: 'Installed', message: '' }],
      [jobCreated, { type: 'Installed', status: 'True', reason: 'Installed', message: '', lastTransitionTime: 't1' }],
    ],
    [
      'adds a condition it did not have, after the others',
      [{ type: 'Failed', status: 'True', reason: 'InvalidTimeout', message: 'x' }],
      [...before, { type: 'Failed', status: 'True', reason: 'InvalidTimeout', message: 'x', lastTransitionTime: 't1' }],
    ],
  ])('%s', (_, updates, expected) => {
    expect(mergeConditions(before, updates, 't1')).toEqual(expected);
  });
});

describe('setStatus', () => {
  const installed = {
    phase: 'Installed' as const,
    conditions: [{ type: 'Installed', status: 'True' as const, reason: 'Installed', message: '' }],
  };

  it('writes with the resourceVersion it read, so it lands on what it read', async () => {
    const { deps, seen, stored } = fakeChart(helmChart({ chart: 'podinfo' }));
    await setStatus(deps, target, installed);
    expect(seen.patches).toEqual([expect.objectContaining({ metadata: { resourceVersion: '1' } })]);
    expect(stored().status).toMatchObject({
      phase: 'Installed',
      conditions: [expect.objectContaining({ type: 'Installed' })],
    });
  });

  it('reads again after a conflict and merges into what the other writer wrote', async () => {
    const { deps, seen, stored } = fakeChart(helmChart({ chart: 'podinfo' }));
    seen.beforePatch.push((c) => ({ ...c, status: { conditions: [condition('SourceAccessible', 'True', 't0')] } }));
    await setStatus(deps, target, installed);
    expect(seen.reads).toBe(2);
    expect(stored().status?.conditions?.map((c) => c.type)).toEqual(['SourceAccessible', 'Installed']);
  });

  it("uses the caller's read first, and a fresh read once that one proves stale", async () => {
    const { deps, seen, stored } = fakeChart(helmChart({ chart: 'podinfo' }));
    const stale = structuredClone(stored());
    stale.metadata.resourceVersion = '0';
    await setStatus(deps, target, installed, stale);
    expect(seen.reads).toBe(1);
    expect(seen.patches).toEqual([
      expect.objectContaining({ metadata: { resourceVersion: '0' } }),
      expect.objectContaining({ metadata: { resourceVersion: '1' } }),
    ]);
  });

  it('gives up after five conflicts in a row, so Temporal retries the step', async () => {
    const { deps, seen } = fakeChart(helmChart({ chart: 'podinfo' }));
    for (let i = 0; i < 5; i++) seen.beforePatch.push((c) => c);
    await expect(setStatus(deps, target, installed)).rejects.toThrow(/kept changing; will retry/u);
  });

  it('writes nothing on a chart recreated under another uid', async () => {
    const { deps, seen } = fakeChart(helmChart({ chart: 'podinfo' }, { uid: 'another-uid' }));
    await setStatus(deps, target, installed);
    expect(seen.patches).toEqual([]);
  });
});

describe('releaseFinalizer', () => {
  it("removes helmflow's finalizer by its place, tested with the uid and the finalizer there, leaving others", async () => {
    const chart = helmChart({ chart: 'podinfo' }, { finalizers: ['example.com/keep', UNINSTALL_FINALIZER] });
    const { deps, seen } = fakeChart(chart);
    await releaseFinalizer(deps, target);
    expect(seen.patches).toEqual([
      [
        { op: 'test', path: '/metadata/uid', value: target.uid },
        { op: 'test', path: '/metadata/finalizers/1', value: UNINSTALL_FINALIZER },
        { op: 'remove', path: '/metadata/finalizers/1' },
      ],
    ]);
  });

  it("serving helm.cattle.io, removes k3s's finalizer too, the later place first", async () => {
    const chart = helmChart(
      { chart: 'podinfo' },
      { finalizers: [K3S_FINALIZER, 'example.com/keep', UNINSTALL_FINALIZER] },
    );
    const { deps, seen } = fakeChart(chart, 'helm.cattle.io');
    await releaseFinalizer(deps, target);
    const ops = (seen.patches[0] as { op: string; path: string }[])
      .filter((op) => op.op === 'remove')
      .map((op) => op.path);
    expect(ops).toEqual(['/metadata/finalizers/2', '/metadata/finalizers/0']);
  });

  it('patches nothing when no finalizer of ours is left, nor on a recreated chart', async () => {
    const done = fakeChart(helmChart({ chart: 'podinfo' }, { finalizers: ['example.com/keep'] }));
    await releaseFinalizer(done.deps, target);
    const recreated = fakeChart(
      helmChart({ chart: 'podinfo' }, { uid: 'another-uid', finalizers: [UNINSTALL_FINALIZER] }),
    );
    await releaseFinalizer(recreated.deps, target);
    expect([...done.seen.patches, ...recreated.seen.patches]).toEqual([]);
  });
});
