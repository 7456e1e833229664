import { desiredStateSignal, releaseChangedSignal, retrySignal, type DesiredState } from '../../workflows/contract.js';
import { FakeCluster } from './support/fake-activities.js';
import {
  desired,
  historyOf,
  ref,
  scheduledActivities,
  startChart,
  summaries,
  uniqueName,
  until,
  untilIdle,
  untilSignalHandled,
  waitForStatus,
  withWorker,
} from './support/harness.js';
import { useTemporal } from './support/use-temporal.js';

const temporal = useTemporal();

const suspended = (d: DesiredState): DesiredState => ({ ...d, suspended: true });

describe('the release as it is', () => {
  it('adds no step to read the release after an install: the success report written by the wait carries it', async () => {
    const cluster = new FakeCluster();
    await withWorker(temporal.env, cluster, async (taskQueue) => {
      const chart = ref(uniqueName('release-read'));
      const handle = await startChart(temporal.env, taskQueue, chart, desired('d1'));
      await waitForStatus(handle, 'phase Installed', (s) => s.phase === 'Installed');
      await untilIdle(handle);
      expect(cluster.calls).toEqual(['prepareInstall', 'awaitJob']);
      expect(cluster.releaseReads).toBe(0);
      expect(summaries(await historyOf(handle))).not.toContainEqual(expect.stringContaining('Read helm release'));
    });
  });

  it('reads it again when the controller signals the stored release moved, without installing', async () => {
    const cluster = new FakeCluster();
    await withWorker(temporal.env, cluster, async (taskQueue) => {
      const chart = ref(uniqueName('release-moved'));
      const handle = await startChart(temporal.env, taskQueue, chart, desired('d1'));
      await waitForStatus(handle, 'phase Installed', (s) => s.phase === 'Installed');
      await untilIdle(handle);
      const before = cluster.calls.length;
      await handle.signal(releaseChangedSignal);
      await until('the release read', () => cluster.releaseReads === 1);
      await untilIdle(handle);
      expect(cluster.callsSince(before)).toEqual(['recordRelease']);
    });
  });
});

describe('suspend, held by the annotation in the desired state', () => {
  it('runs no install while suspended, whatever changes; says so once; installs again when resumed', async () => {
    const cluster = new FakeCluster();
    await withWorker(temporal.env, cluster, async (taskQueue) => {
      const chart = ref(uniqueName('suspended'));
      const handle = await startChart(temporal.env, taskQueue, chart, desired('d1'));
      await waitForStatus(handle, 'phase Installed', (s) => s.phase === 'Installed');

      await handle.signal(desiredStateSignal, suspended(desired('d1')));
      await waitForStatus(handle, 'phase Suspended', (s) => s.phase === 'Suspended');
      await until('HelmChartSuspended recorded', () => cluster.events.some((e) => e.reason === 'HelmChartSuspended'));
      expect(cluster.statuses.at(-1)).toMatchObject({
        phase: 'Suspended',
        conditions: [{ type: 'Suspended', status: 'True', reason: 'Suspended' }],
      });

      // A spec change (a new generation and digest) and a retry: neither ends the suspend, unlike a cancel's pause.
      await handle.signal(desiredStateSignal, suspended(desired('d2', { generation: 2 })));
      await handle.signal(retrySignal, { requestedBy: 'test' });
      await untilSignalHandled(handle);
      await untilIdle(handle);
      expect(cluster.installStarts).toHaveLength(1);
      expect(cluster.events.filter((e) => e.reason === 'HelmChartSuspended')).toHaveLength(1);

      await handle.signal(desiredStateSignal, desired('d2', { generation: 2 }));
      const status = await waitForStatus(handle, 'installed d2', (s) => s.installedDigest === 'd2');
      expect(status.phase).toBe('Installed');
      expect(cluster.installStarts).toHaveLength(2);
      expect(cluster.events.map((e) => e.reason)).toContain('HelmChartResumed');
      expect(cluster.statuses).toContainEqual(
        expect.objectContaining({ conditions: [expect.objectContaining({ type: 'Suspended', status: 'False' })] }),
      );
      expect(scheduledActivities(await historyOf(handle)).filter((a) => a === 'prepareInstall')).toHaveLength(2);
    });
  });
});
