import { deleteSignal } from '../../workflows/contract.js';
import { FakeCluster, never, UNINSTALL_CALLS } from './support/fake-activities.js';
import { useTemporal } from './support/use-temporal.js';
import {
  desired,
  historyOf,
  ref,
  startChart,
  timerSeconds,
  until,
  uniqueName,
  waitForStatus,
  withWorker,
} from './support/harness.js';

const temporal = useTemporal();

describe('deleting a chart', () => {
  it('uninstalls with helm-delete-<name>, removes its objects, releases the finalizer and completes', async () => {
    const cluster = new FakeCluster();
    await withWorker(temporal.env, cluster, async (taskQueue) => {
      const chart = ref(uniqueName('deleted'));
      const handle = await startChart(temporal.env, taskQueue, chart, desired('d1'));
      await waitForStatus(handle, 'phase Installed', (s) => s.phase === 'Installed');
      const before = cluster.calls.length;
      await handle.signal(deleteSignal, { uid: 'uid-1' });
      expect(await handle.result()).toBe('deleted');
      expect(cluster.callsSince(before)).toEqual(UNINSTALL_CALLS);
      expect(cluster.statuses.at(-1)).toMatchObject({ phase: 'Deleting', jobName: `helm-delete-${chart.name}` });
      expect(cluster.events).toEqual([]);
    });
  });

  it('records HelmChartUninstallFailed naming the release when the uninstall fails, and still releases the finalizer', async () => {
    const cluster = new FakeCluster();
    cluster.deleteOutcome = () => ({ outcome: 'failed', reason: 'BackoffLimitExceeded' });
    await withWorker(temporal.env, cluster, async (taskQueue) => {
      const chart = ref(uniqueName('uninstall-fails'));
      const handle = await startChart(temporal.env, taskQueue, chart, desired('d1'));
      await waitForStatus(handle, 'phase Installed', (s) => s.phase === 'Installed');
      await handle.signal(deleteSignal, { uid: 'uid-1' });
      expect(await handle.result()).toBe('deleted');
      expect(cluster.events).toEqual([
        {
          type: 'Warning',
          reason: 'HelmChartUninstallFailed',
          message: `helm-delete-${chart.name} BackoffLimitExceeded`,
        },
      ]);
      expect(cluster.objectsRemoved).toBe(true);
      expect(cluster.releasedUids).toEqual(['uid-1']);
      expect(cluster.calls.slice(-3)).toEqual(['recordUninstallFailure', 'removeInstallObjects', 'releaseFinalizer']);
    });
  });

  it('gives up on an uninstall that outlasts uninstallTimeoutSeconds, records it, and still releases the finalizer', async () => {
    const cluster = new FakeCluster();
    cluster.deleteOutcome = () => never();
    await withWorker(temporal.env, cluster, async (taskQueue) => {
      const chart = ref(uniqueName('uninstall-hangs'));
      const handle = await startChart(temporal.env, taskQueue, chart, desired('d1'), { uninstallTimeoutSeconds: 2 });
      await waitForStatus(handle, 'phase Installed', (s) => s.phase === 'Installed');
      await handle.signal(deleteSignal, { uid: 'uid-1' });
      expect(await handle.result()).toBe('deleted');
      expect(cluster.events).toEqual([
        { type: 'Warning', reason: 'HelmChartUninstallFailed', message: `helm-delete-${chart.name} UninstallTimedOut` },
      ]);
      expect(cluster.objectsRemoved).toBe(true);
      expect(cluster.releasedUids).toEqual(['uid-1']);
      // The bound is a durable timer of uninstallTimeoutSeconds; the hung wait was cancelled, not left running.
      expect(timerSeconds(await historyOf(handle))).toEqual([2]);
      // Cancellation reaches an activity with its next heartbeat reply, which the SDK throttles (up to 80% of the
      // 30 s heartbeat timeout): wait for it rather than expect it by the time the workflow has finished.
      await until(
        'the hung wait to be cancelled',
        () => cluster.waits.find((w) => w.jobUid === 'delete-1')?.ended !== undefined,
        40_000,
      );
      expect(cluster.waits.find((w) => w.jobUid === 'delete-1')?.ended).toBe('cancelled');
    });
  });

  it('releases the finalizer of a chart deleted before any install ran', async () => {
    const cluster = new FakeCluster();
    cluster.chartPresent = false;
    await withWorker(temporal.env, cluster, async (taskQueue) => {
      const chart = ref(uniqueName('gone'));
      const handle = await startChart(temporal.env, taskQueue, chart, desired('d1'));
      await handle.signal(deleteSignal, { uid: 'uid-1' });
      expect(await handle.result()).toBe('deleted');
      expect(cluster.releasedUids).toEqual(['uid-1']);
    });
  });
});
