import { GRANT_MS } from '../../activities/job-slot-ledger.js';
import { waitFor } from '../../src/lib/wait.js';
import { buildChart } from './support/charts.js';
import { useHelmflow } from './support/helmflow.js';
import { apply, helmChart, readHelmChart } from './support/helmcharts.js';
import { clients, freshNamespace, kubectl } from './support/kube.js';
import { pendingActivities, watchJobs } from './support/observe.js';
import { helmflowCli } from './support/operator-cli.js';

// The cap counts every helmflow install Job in the cluster: those earlier test files left running are deleted
// before this file starts (support/setup.ts), or two of them would take both slots.
const MAX = 2;
const helmflow = useHelmflow({ maxRunningJobs: MAX });

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

// A chart whose install holds its Job slot until the test lets it go: helm's --wait waits for its claim to be Bound,
// and nothing on the embedded stack binds one (no volume controller runs), so the test does, by writing its status.
const gated = buildChart({
  name: 'gated',
  templates: {
    'gate.yaml': `apiVersion: v1
kind: PersistentVolumeClaim
metadata:
  name: {{ .Release.Name }}-gate
spec:
  accessModes: [ReadWriteOnce]
  resources: { requests: { storage: 1Mi } }
`,
  },
});

describe('--max-running-jobs, in turn', () => {
  let ns = '';
  /** Every gated chart applied, so that none is left holding a slot whatever happens. */
  const gates: { ns: string; name: string }[] = [];
  /** Binds the chart's claim, once helm has made it: its install then ends. */
  const open = async (name: string, where = ns) => {
    const args = ['patch', 'pvc', `${name}-gate`, '-n', where, '--subresource=status', '--type=merge'];
    await waitFor(
      `${name}'s claim bound`,
      async () => kubectl([...args, '-p', '{"status":{"phase":"Bound"}}']).status === 0 || undefined,
      { timeoutMs: 60_000 },
    );
  };
  afterAll(async () => {
    // Whatever happened, no gated install is left holding a slot for the test files after this one.
    for (const gate of gates) await open(gate.name, gate.ns).catch(() => undefined);
  });
  const gatedChart = (name: string) => {
    gates.push({ ns, name });
    return helmChart(ns, name, { chartContent: gated.chartContent, timeout: '10m' });
  };
  const jobCreated = async (name: string) =>
    (await readHelmChart(ns, name))?.status?.conditions?.find((k) => k.type === 'JobCreated');
  /**
   * Applies `name`'s chart and waits until it is in its slot wait (Temporal's describe shows the step started).
   * Returns the wait's heartbeat timeout in seconds.
   */
  const applyWaiting = async (name: string, chartContent: string) => {
    apply(helmChart(ns, name, { chartContent }));
    return waitFor(
      `${name} waiting for a slot`,
      async () => {
        if ((await jobCreated(name))?.reason !== 'WaitingForJobSlot') return undefined;
        const activities = await pendingActivities(helmflow.settings, ns, name);
        const wait = activities.find((a) => a.type === 'awaitJobSlot' && a.started);
        return wait === undefined ? undefined : (wait.heartbeatTimeoutSeconds ?? 0);
      },
      { timeoutMs: 60_000 },
    );
  };
  /** Takes both slots with gated charts: `held` for the whole test, `freed` until the test opens it. */
  const takeBothSlots = async () => {
    apply(gatedChart('held'));
    apply(gatedChart('freed'));
    for (const name of ['held', 'freed']) {
      await waitFor(`${name}'s Job created`, async () => (await jobCreated(name))?.status === 'True' || undefined, {
        timeoutMs: 60_000,
      });
    }
  };

  it('gives freed slots to the waiting charts in the order they began waiting, not to whichever looks first', async () => {
    ns = await freshNamespace('job-turns');
    await takeBothSlots();
    // Five charts begin waiting one after another; each is in its slot wait before the next is applied.
    const waiting = ['w1', 'w2', 'w3', 'w4', 'w5'];
    const plain = buildChart({ name: 'turn' });
    const heartbeatTimeouts: number[] = [];
    for (const name of waiting) heartbeatTimeouts.push(await applyWaiting(name, plain.chartContent));
    // Fewer waiters ahead than the cap's two slots: a wait lost on its way to a worker costs 20 s, not a minute.
    expect(heartbeatTimeouts).toEqual([20, 20, 60, 60, 60]);
    const jobs = await watchJobs(ns);
    try {
      // One slot frees; each waiter's Job takes it when the one before ends: all five in the order they waited.
      await open('freed');
      await waitFor(
        'every waiting chart Installed',
        async () => {
          const charts = await Promise.all(waiting.map((name) => readHelmChart(ns, name)));
          return charts.every((c) => c?.status?.phase === 'Installed') || undefined;
        },
        { timeoutMs: 180_000, intervalMs: 200 },
      );
      const created = jobs.added.map((a) => a.name).filter((name) => name.startsWith('helm-install-w'));
      expect(created).toEqual(waiting.map((name) => `helm-install-${name}`));
    } finally {
      jobs.stop();
    }
    await open('held');
  });

  it('gives the slot of a chart paused while it waited to the next in line at once, not after GRANT_MS', async () => {
    ns = await freshNamespace('job-turn-paused');
    await takeBothSlots();
    const plain = buildChart({ name: 'turn' });
    // The first in line is paused while it waits; its wait learns of it only at its next heartbeat, within 16 s
    // (48 s further back in line).
    await applyWaiting('paused', plain.chartContent);
    await applyWaiting('next', plain.chartContent);
    const cancel = helmflowCli(['chart', 'cancel', `${ns}/paused`]);
    expect(cancel.status).toBe(0);
    await waitFor(
      'the chart Paused',
      async () => (await readHelmChart(ns, 'paused'))?.status?.phase === 'Paused' || undefined,
      {
        timeoutMs: 30_000,
      },
    );
    const jobs = await watchJobs(ns);
    try {
      await open('freed');
      await waitFor(
        'next Installed',
        async () => (await readHelmChart(ns, 'next'))?.status?.phase === 'Installed' || undefined,
        {
          timeoutMs: 180_000,
          intervalMs: 200,
        },
      );
      // The freed slot went to the paused chart's turn: its wait gave it back, and the next chart's Job followed
      // within seconds, where holding it for the paused chart would have kept it GRANT_MS (60 s).
      const freed = await clients().batch.readNamespacedJob({ namespace: ns, name: 'helm-install-freed' });
      const ended = freed.status?.completionTime?.getTime() ?? Number.NaN;
      const next = jobs.added.find((a) => a.name === 'helm-install-next');
      const gap = (next?.seenAt ?? Number.NaN) - ended;
      process.stderr.write(`job-slots: the freed Job's end to the next chart's Job created: ${gap} ms\n`);
      expect(gap).toBeLessThan(GRANT_MS / 2);
      expect(jobs.added.map((a) => a.name)).not.toContain('helm-install-paused');
    } finally {
      jobs.stop();
    }
    await open('held');
  });
});
