// Two controllers (issue 5; test/e2e/seed-coverage.md, "What Runs"): on one Lease only the leader acts and a killed leader is
// replaced; with the Lease deliberately disabled, two acting at once still make exactly one install Job per change.
import { waitFor } from '../../src/lib/wait.js';
import { buildChart, releaseValues } from './support/charts.js';
import { installCrds } from './support/crds.js';
import { helmflowSettings, spawnRole, startController, startWorker, type RunningRole } from './support/helmflow.js';
import { apply, chartInstalled, helmChart, readHelmChart, releaseRevisions } from './support/helmcharts.js';
import { freshNamespace, kubectl } from './support/kube.js';
import { spawnHelmflow } from './support/helmflow-process.js';
import { readLease } from './support/leases.js';
import { watchJobs } from './support/observe.js';
import { startStallProxy } from './support/stall-proxy.js';

const chart = buildChart({ name: 'ha', values: { greeting: 'from the chart' } });
const running: RunningRole[] = [];

beforeAll(async () => {
  await installCrds('helm.k3sm.io');
});
afterEach(async () => {
  await Promise.all(running.splice(0).map((r) => r.stop()));
});

describe('two controllers', () => {
  it('on one Lease: only the leader acts; when it is killed the other takes the Lease and installs a new chart', async () => {
    const settings = helmflowSettings();
    running.push(startWorker(settings));
    const first = spawnRole('controller', settings);
    try {
      await first.printed('leading');
      const leadership: boolean[] = [];
      const second = startController(settings, { onLeading: (leading) => leadership.push(leading) });
      running.push(second);

      const ns = await freshNamespace('failover');
      apply(helmChart(ns, 'before', { chartContent: chart.chartContent }));
      await chartInstalled(ns, 'before');
      const lease = await readLease(settings.leaseNamespace, settings.leaseName);
      expect(lease.spec?.holderIdentity).toContain(`_${String(first.child.pid)}_`);
      expect(leadership).toEqual([]);

      // SIGKILL: the Lease is not given up; the other controller takes it once it expires.
      const killedAt = Date.now();
      await first.kill();
      await waitFor('the second controller to lead', () => leadership.at(-1) === true, { timeoutMs: 40_000 });
      const takeover = Date.now() - killedAt;
      const taken = await readLease(settings.leaseNamespace, settings.leaseName);
      expect(taken.spec?.holderIdentity).toContain(`_${String(second.pid)}_`);
      expect(taken.spec?.leaseTransitions).toBeGreaterThanOrEqual(1);

      const appliedAt = Date.now();
      apply(helmChart(ns, 'after', { chartContent: chart.chartContent, valuesContent: 'greeting: after failover\n' }));
      const installed = await chartInstalled(ns, 'after');
      expect(installed.status?.jobName).toBe('helm-install-after');
      expect(await releaseValues(ns, 'after')).toEqual(expect.objectContaining({ greeting: 'after failover' }));
      console.log(
        `leader failover: takeover ${String(takeover)} ms after SIGKILL; a new chart installed ${String(Date.now() - appliedAt)} ms after kubectl apply`,
      );
    } finally {
      await first.kill();
    }
  });

  it('a leader whose apiserver connection goes silent (half-open) stops acting by its renew deadline; the other takes over', async () => {
    // The controller's defaults (leader-election.ts): renew every 2 s, step down 10 s after the last renewal,
    // others take over 15 s after the last renewal they saw.
    const renewDeadlineMs = 10_000;
    const settings = helmflowSettings();
    running.push(startWorker(settings));
    const proxy = await startStallProxy();
    const events: { who: 'stale' | 'other'; what: string; at: number }[] = [];
    const record = (who: 'stale' | 'other') => ({
      onLeading: (leading: boolean) => events.push({ who, what: leading ? 'leading' : 'not leading', at: Date.now() }),
      onSignal: (kind: string) => events.push({ who, what: `signal ${kind}`, at: Date.now() }),
    });
    // The first controller reaches the apiserver only through the proxy; the second directly.
    const stale = spawnHelmflow('controller', { ...settings, kubeconfig: proxy.kubeconfig }, record('stale'));
    try {
      await stale.logged('leading');
      running.push(startController(settings, record('other')));
      const ns = await freshNamespace('half-open');
      apply(helmChart(ns, 'before', { chartContent: chart.chartContent }));
      await chartInstalled(ns, 'before');
      expect(events.some((e) => e.who === 'stale' && e.what === 'signal desired')).toBe(true);
      expect(events.filter((e) => e.who === 'other' && e.what === 'leading')).toEqual([]);

      // Every byte either way is dropped from now on, and no connection is closed: its Lease calls hang.
      const stalledAt = Date.now();
      proxy.stall();
      const steppedDown = await waitFor(
        'the leader on the silent connection to stop leading',
        () => events.find((e) => e.who === 'stale' && e.what === 'not leading'),
        { timeoutMs: 40_000, intervalMs: 100 },
      );
      const tookOver = await waitFor(
        'the other controller to lead',
        () => events.find((e) => e.who === 'other' && e.what === 'leading'),
        { timeoutMs: 40_000, intervalMs: 100 },
      );
      // Its last renewal was before the stall, so its deadline passed at most renewDeadlineMs after it (plus the
      // time for the log line to arrive); the hung call was not waited for.
      expect(steppedDown.at - stalledAt).toBeLessThanOrEqual(renewDeadlineMs + 1_500);
      // It stopped before the other could start: never two acting at once.
      expect(steppedDown.at).toBeLessThan(tookOver.at);
      const taken = await readLease(settings.leaseNamespace, settings.leaseName);
      expect(taken.spec?.holderIdentity).not.toContain(`_${String(stale.child.pid)}_`);

      apply(helmChart(ns, 'after', { chartContent: chart.chartContent }));
      await chartInstalled(ns, 'after');
      expect(events.filter((e) => e.who === 'other' && e.what === 'signal desired').length).toBeGreaterThan(0);
      // Nothing signalled by the stale leader once it stepped down.
      expect(events.filter((e) => e.who === 'stale' && e.what.startsWith('signal') && e.at > steppedDown.at)).toEqual(
        [],
      );
      console.log(
        `half-open leader: stepped down ${String(steppedDown.at - stalledAt)} ms after its connection went silent; ` +
          `the other led ${String(tookOver.at - stalledAt)} ms after`,
      );
    } finally {
      await stale.kill();
      await proxy.close();
    }
  });

  it('without the Lease, both acting at once: exactly one install Job per change, one delete Job, a correct final state', async () => {
    const settings = helmflowSettings({ disableLeaderElection: true });
    const signals = [0, 0];
    const [a, b] = [0, 1].map((i) =>
      startController(settings, {
        onSignal: () => {
          signals[i] = (signals[i] ?? 0) + 1;
        },
      }),
    );
    running.push(a as RunningRole, b as RunningRole, startWorker(settings));
    const ns = await freshNamespace('overlap');
    const jobs = await watchJobs(ns);
    try {
      const spec = (greeting: string) => ({
        chartContent: chart.chartContent,
        valuesContent: `greeting: ${greeting}\n`,
      });
      apply(helmChart(ns, 'shared', spec('first')));
      await chartInstalled(ns, 'shared');
      expect(jobs.uidsOf('helm-install-shared')).toHaveLength(1);

      apply(helmChart(ns, 'shared', spec('second')));
      await waitFor('revision 2', () => releaseRevisions(ns, 'shared').length === 2 || undefined, {
        timeoutMs: 120_000,
      });
      await chartInstalled(ns, 'shared');
      // Both controllers signalled each generation (each keeps its own record of what it sent).
      await waitFor('both controllers to have signalled both generations', () => signals.every((n) => n >= 2), {
        timeoutMs: 30_000,
      });
      expect(jobs.uidsOf('helm-install-shared')).toHaveLength(2);
      expect(releaseRevisions(ns, 'shared').map((r) => r.status)).toEqual(['superseded', 'deployed']);
      expect(await releaseValues(ns, 'shared')).toEqual(expect.objectContaining({ greeting: 'second' }));

      expect(kubectl(['delete', 'helmcharts.helm.k3sm.io', 'shared', '-n', ns, '--wait=false']).status).toBe(0);
      await waitFor('the HelmChart to be gone', async () => (await readHelmChart(ns, 'shared')) === undefined, {
        timeoutMs: 120_000,
      });
      expect(jobs.uidsOf('helm-delete-shared')).toHaveLength(1);
      expect(jobs.uidsOf('helm-install-shared')).toHaveLength(2);
      expect(releaseRevisions(ns, 'shared')).toEqual([]);
    } finally {
      jobs.stop();
    }
  });
});
