import { waitFor } from '../../src/lib/wait.js';
import { buildChart } from './support/charts.js';
import { useHelmflow } from './support/helmflow.js';
import { apply, helmChart, readHelmChart } from './support/helmcharts.js';
import { clients, freshNamespace } from './support/kube.js';

// The cap counts every helmflow install Job in the cluster: those earlier test files left running are deleted
// before this file starts (support/setup.ts), or two of them would take both slots.
const MAX = 2;
useHelmflow({ maxRunningJobs: MAX });

/** The most intervals open at once; each is [start, end), so one that ends as another starts does not overlap it. */
function mostAtOnce(intervals: { start: number; end: number }[]): number {
  const edges = intervals.flatMap((i) => [
    { at: i.start, step: 1 },
    { at: i.end, step: -1 },
  ]);
  edges.sort((a, b) => a.at - b.at || a.step - b.step);
  let open = 0;
  let most = 0;
  for (const edge of edges) {
    open += edge.step;
    most = Math.max(most, open);
  }
  return most;
}

describe('--max-running-jobs', () => {
  it('runs at most that many install Jobs at once; the charts past it say they wait for a slot, then install', async () => {
    const chart = buildChart({ name: 'slots' });
    const ns = await freshNamespace('job-slots');
    const names = ['a', 'b', 'c', 'd', 'e'];
    for (const name of names) apply(helmChart(ns, name, { chartContent: chart.chartContent }));

    const waited = new Set<string>();
    await waitFor(
      'every chart Installed',
      async () => {
        const charts = await Promise.all(names.map((name) => readHelmChart(ns, name)));
        for (const c of charts) {
          const created = c?.status?.conditions?.find((k) => k.type === 'JobCreated');
          if (created?.reason === 'WaitingForJobSlot') waited.add(c?.metadata.name ?? '');
        }
        return charts.every((c) => c?.status?.phase === 'Installed') ? true : undefined;
      },
      { timeoutMs: 200_000, intervalMs: 200 },
    );

    // Charts past the cap said why they had no Job yet; once created, JobCreated is True.
    expect(waited.size).toBeGreaterThan(0);
    const jobs = (await clients().batch.listNamespacedJob({ namespace: ns })).items;
    expect(jobs.map((j) => j.metadata?.name).sort()).toEqual(names.map((n) => `helm-install-${n}`));
    const intervals = jobs.map((j) => ({
      start: j.metadata?.creationTimestamp?.getTime() ?? 0,
      end: j.status?.completionTime?.getTime() ?? Number.MAX_SAFE_INTEGER,
    }));
    expect(mostAtOnce(intervals)).toBeLessThanOrEqual(MAX);
    const last = await readHelmChart(ns, [...waited][0] ?? '');
    expect(last?.status?.conditions?.find((k) => k.type === 'JobCreated')).toMatchObject({
      status: 'True',
      reason: 'JobCreated',
    });
  });
});
