// Two controllers (issue 5, seed 000 "What Runs"): on one Lease only the leader acts and a killed leader is
// replaced; with the Lease deliberately disabled, two acting at once still make exactly one install Job per change.
import { waitFor } from '../../src/devstack/wait.js';
import { buildChart, releaseValues } from './support/charts.js';
import { installCrds } from './support/crds.js';
import { helmflowSettings, spawnRole, startController, startWorker, type RunningRole } from './support/helmflow.js';
import { apply, chartInstalled, helmChart, readHelmChart, releaseRevisions } from './support/helmcharts.js';
import { freshNamespace, kubectl } from './support/kube.js';
import { readLease } from './support/leases.js';
import { watchJobs } from './support/observe.js';

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
