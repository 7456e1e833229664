import { desiredStateSignal } from '../../workflows/contract.js';
import { FakeCluster } from './support/fake-activities.js';
import {
  desired,
  historyOf,
  ref,
  scheduledActivities,
  startChart,
  uniqueName,
  until,
  untilIdle,
  waitForStatus,
  withWorker,
} from './support/harness.js';
import { useTemporal } from './support/use-temporal.js';

const temporal = useTemporal();

const behind = 'widgets.example.com: v1 lacks spec.color';

describe('an upgrade of a chart with CRDs compares its crds/ before the install Job', () => {
  it('runs no install Job while the cluster’s CRDs are behind: the attempt fails as CRDsStale, and the next attempt compares again', async () => {
    const cluster = new FakeCluster();
    cluster.crdsVerdict = (n) => (n === 1 ? { state: 'stale', crds: 1, behind } : { state: 'current', crds: 1 });
    await withWorker(temporal.env, cluster, async (taskQueue) => {
      const chart = ref(uniqueName('crds-stale'));
      const handle = await startChart(temporal.env, taskQueue, chart, desired('d1', { failurePolicy: 'abort' }));
      const status = await waitForStatus(handle, 'phase Failed', (s) => s.phase === 'Failed');
      expect(status.lastFailure).toEqual({ reason: 'CRDsStale', digest: 'd1' });
      await untilIdle(handle);
      // No install Job was ever created: helm upgrade did not run.
      expect(cluster.installStarts).toHaveLength(0);
      expect(cluster.calls).toEqual(['prepareInstall', 'awaitChartCrds', 'setStatus', 'recordEvent']);
      expect(cluster.statuses.at(-1)).toMatchObject({
        phase: 'Failed',
        conditions: [{ type: 'Failed', status: 'True', reason: 'CRDsStale' }],
      });
      expect(cluster.statuses.at(-1)?.conditions[0]?.message).toContain(behind);
      expect(cluster.events.map((e) => e.reason)).toEqual(['HelmChartCRDsStale', 'HelmChartInstallFailed']);

      // Once the CRDs are applied by hand, a retry (here: a new spec) compares again and upgrades.
      await handle.signal(desiredStateSignal, desired('d2', { generation: 2 }));
      await waitForStatus(handle, 'installed d2', (s) => s.installedDigest === 'd2');
      expect(cluster.installStarts).toHaveLength(1);
      expect(cluster.crdsCompared).toEqual([true]);
      const scheduled = scheduledActivities(await historyOf(handle));
      expect(scheduled.filter((a) => a === 'awaitChartCrds')).toHaveLength(2);
    });
  });

  it('creates the install Job once they are current, tells its wait not to compare again, and remembers the chart has CRDs', async () => {
    const cluster = new FakeCluster();
    cluster.crdsVerdict = () => ({ state: 'current', crds: 2 });
    await withWorker(temporal.env, cluster, async (taskQueue) => {
      const chart = ref(uniqueName('crds-current'));
      const handle = await startChart(temporal.env, taskQueue, chart, desired('d1'));
      await waitForStatus(handle, 'installed d1', (s) => s.installedDigest === 'd1');
      expect(cluster.calls.slice(0, 4)).toEqual(['prepareInstall', 'awaitChartCrds', 'prepareInstall', 'awaitJob']);
      // The second preparation is told these crds/ were compared: it creates the install Job.
      expect(cluster.crdsHints).toEqual([undefined, { chartCrds: true, checkedDigest: 'digest-at-1' }]);
      expect(cluster.crdsCompared).toEqual([true]);

      await handle.signal(desiredStateSignal, desired('d2', { generation: 2 }));
      await waitForStatus(handle, 'installed d2', (s) => s.installedDigest === 'd2');
      // The next upgrade is prepared knowing the chart has CRDs, and compares them first again.
      expect(cluster.crdsHints[2]).toEqual({ chartCrds: true });
      expect(cluster.calls.filter((c) => c === 'awaitChartCrds')).toHaveLength(2);
    });
  });

  it('pays nothing for a chart whose install Job printed no CRDs', async () => {
    const cluster = new FakeCluster();
    cluster.installChartCrds = 0;
    await withWorker(temporal.env, cluster, async (taskQueue) => {
      const chart = ref(uniqueName('crds-none'));
      const handle = await startChart(temporal.env, taskQueue, chart, desired('d1'));
      await waitForStatus(handle, 'installed d1', (s) => s.installedDigest === 'd1');
      expect(cluster.crdsHints).toEqual([undefined]);

      // From now on every preparation is told the chart has none: no crds Job, even for an upgrade.
      cluster.crdsVerdict = () => ({ state: 'stale', crds: 1, behind });
      await handle.signal(desiredStateSignal, desired('d2', { generation: 2 }));
      await waitForStatus(handle, 'installed d2', (s) => s.installedDigest === 'd2');
      expect(cluster.crdsHints[1]).toEqual({ chartCrds: false });
      expect(cluster.calls).not.toContain('awaitChartCrds');
      expect(cluster.installStarts).toHaveLength(2);
    });
  });

  it('goes on with the install Job, which compares beside the upgrade, when the crds Job printed nothing', async () => {
    const cluster = new FakeCluster();
    cluster.crdsVerdict = () => ({ state: 'unread', why: 'helm-crds-x failed (BackoffLimitExceeded)' });
    await withWorker(temporal.env, cluster, async (taskQueue) => {
      const chart = ref(uniqueName('crds-unread'));
      const handle = await startChart(temporal.env, taskQueue, chart, desired('d1'));
      await waitForStatus(handle, 'installed d1', (s) => s.installedDigest === 'd1');
      await until('one install Job', () => cluster.installStarts.length === 1);
      expect(cluster.crdsHints).toEqual([undefined, { checkedDigest: 'digest-at-1' }]);
      expect(cluster.crdsCompared).toEqual([undefined]);
    });
  });

  it('fails a chartContent chart’s attempt as CRDsStale with no Job when its archive’s crds/ are behind, and compares again next time', async () => {
    const cluster = new FakeCluster();
    cluster.archiveBehind = (n) => (n === 1 ? behind : undefined);
    await withWorker(temporal.env, cluster, async (taskQueue) => {
      const chart = ref(uniqueName('archive-stale'));
      const handle = await startChart(temporal.env, taskQueue, chart, desired('d1', { failurePolicy: 'abort' }));
      const status = await waitForStatus(handle, 'phase Failed', (s) => s.phase === 'Failed');
      expect(status.lastFailure).toEqual({ reason: 'CRDsStale', digest: 'd1' });
      await untilIdle(handle);
      expect(cluster.installStarts).toHaveLength(0);
      // One step compared them; no crds Job was awaited.
      expect(cluster.calls).toEqual(['prepareInstall', 'setStatus', 'recordEvent']);
      expect(cluster.statuses.at(-1)?.conditions[0]?.message).toContain(behind);

      await handle.signal(desiredStateSignal, desired('d2', { generation: 2 }));
      await waitForStatus(handle, 'installed d2', (s) => s.installedDigest === 'd2');
      expect(cluster.installStarts).toHaveLength(1);
      expect(cluster.calls).not.toContain('awaitChartCrds');
    });
  });
});
