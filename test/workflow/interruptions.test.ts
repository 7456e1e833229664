import { deleteSignal, desiredStateSignal, statusQuery } from '../../workflows/contract.js';
import { Deferred, FakeCluster, never, UNINSTALL_CALLS } from './support/fake-activities.js';
import { useTemporal } from './support/use-temporal.js';
import {
  desired,
  ref,
  scheduledActivities,
  startChart,
  uniqueName,
  until,
  untilIdle,
  untilSignalHandled,
  waitForStatus,
  withWorker,
} from './support/harness.js';
import type { JobOutcome } from '../../activities/types.js';

const temporal = useTemporal();

describe('a spec change while an install runs', () => {
  it('cancels the waiting attempt and starts a new one for the new digest', async () => {
    const cluster = new FakeCluster();
    cluster.installOutcome = (n) => (n === 1 ? never() : { outcome: 'succeeded' });
    await withWorker(temporal.env, cluster, async (taskQueue) => {
      const chart = ref(uniqueName('changed'));
      const handle = await startChart(temporal.env, taskQueue, chart, desired('d1'));
      await until('attempt 1 waiting on its Job', () => cluster.waits.length === 1);
      expect((await handle.query(statusQuery)).phase).toBe('Installing');

      await handle.signal(desiredStateSignal, desired('d2', { generation: 2 }));
      const status = await waitForStatus(handle, 'd2 installed', (s) => s.installedDigest === 'd2');
      expect(status).toMatchObject({ phase: 'Installed', attempt: 2, desiredDigest: 'd2' });
      // The activity of the superseded attempt saw its cancellation (it stops watching the old Job)...
      await until('the first wait cancelled', () => cluster.waits[0]?.ended === 'cancelled');
      // ...and the next attempt replaced the Job: prepareInstall again, with attempt + 1. No failure was recorded.
      expect(cluster.installStarts).toEqual([
        { uid: 'uid-1', attempt: 1 },
        { uid: 'uid-1', attempt: 2 },
      ]);
      expect(cluster.events).toEqual([]);
      expect(cluster.calls).not.toContain('recordInstallFailure');
    });
  });

  it('starts the next attempt only once the superseded one has finished creating its Job', async () => {
    const cluster = new FakeCluster();
    const creating = new Deferred<void>();
    let prepares = 0;
    cluster.onPrepare = async () => {
      prepares += 1;
      if (prepares === 1) await creating.promise;
    };
    await withWorker(temporal.env, cluster, async (taskQueue) => {
      const chart = ref(uniqueName('changed-mid-create'));
      const handle = await startChart(temporal.env, taskQueue, chart, desired('d1'));
      await until('attempt 1 creating its Job', () => prepares === 1);

      await handle.signal(desiredStateSignal, desired('d2', { generation: 2 }));
      try {
        expect(scheduledActivities(await untilSignalHandled(handle))).toEqual(['prepareInstall']);
      } finally {
        creating.resolve();
      }
      await waitForStatus(handle, 'd2 installed', (s) => s.installedDigest === 'd2');
      // Attempt 1's Job was created and never waited on; attempt 2 replaced it.
      expect(cluster.installStarts).toEqual([
        { uid: 'uid-1', attempt: 1 },
        { uid: 'uid-1', attempt: 2 },
      ]);
      expect(cluster.calls).toEqual(['prepareInstall', 'prepareInstall', 'awaitJob']);
    });
  });

  it('installs a spec changed back to the installed one again: the stopped attempt may have changed the release', async () => {
    const cluster = new FakeCluster();
    cluster.installOutcome = (n) => (n === 2 ? never() : { outcome: 'succeeded' });
    await withWorker(temporal.env, cluster, async (taskQueue) => {
      const chart = ref(uniqueName('changed-back'));
      const handle = await startChart(temporal.env, taskQueue, chart, desired('d1'));
      await waitForStatus(handle, 'd1 installed', (s) => s.installedDigest === 'd1');
      await handle.signal(desiredStateSignal, desired('d2', { generation: 2 }));
      await until('attempt 2 waiting on its Job', () => cluster.waits.length === 2);

      await handle.signal(desiredStateSignal, desired('d1', { generation: 3 }));
      const status = await waitForStatus(
        handle,
        'attempt 3 installed d1',
        (s) => s.attempt === 3 && s.phase === 'Installed',
      );
      expect(status).toMatchObject({ installedDigest: 'd1', desiredDigest: 'd1' });
      await until('the wait of attempt 2 cancelled', () => cluster.waits[1]?.ended === 'cancelled');
      // Attempt 3's Job replaces attempt 2's, which would otherwise go on installing d2 unwatched.
      expect(cluster.installStarts.map((i) => i.attempt)).toEqual([1, 2, 3]);
    });
  });

  it('cuts a reinstall backoff short when the spec changes', async () => {
    const cluster = new FakeCluster();
    cluster.installOutcome = (n) =>
      n === 1 ? { outcome: 'failed', reason: 'BackoffLimitExceeded' } : { outcome: 'succeeded' };
    await withWorker(temporal.env, cluster, async (taskQueue) => {
      const chart = ref(uniqueName('backoff-cut'));
      const handle = await startChart(temporal.env, taskQueue, chart, desired('d1'), {
        backoffBaseSeconds: 600,
        backoffMaxSeconds: 600,
      });
      await waitForStatus(handle, 'phase Backoff', (s) => s.phase === 'Backoff');
      await handle.signal(desiredStateSignal, desired('d2', { generation: 2 }));
      await waitForStatus(
        handle,
        'd2 installed well before the 600 s backoff',
        (s) => s.installedDigest === 'd2',
        20_000,
      );
    });
  });
});

describe('a delete while an install runs', () => {
  it('stops the install, uninstalls, releases the finalizer and completes', async () => {
    const cluster = new FakeCluster();
    cluster.installOutcome = () => never();
    await withWorker(temporal.env, cluster, async (taskQueue) => {
      const chart = ref(uniqueName('deleted-mid-install'));
      const handle = await startChart(temporal.env, taskQueue, chart, desired('d1'));
      await until('the install waiting on its Job', () => cluster.waits.length === 1);
      const before = cluster.calls.length;

      await handle.signal(deleteSignal, { uid: 'uid-1' });
      expect(await handle.result()).toBe('deleted');
      expect(cluster.waits[0]?.ended).toBe('cancelled');
      expect(cluster.callsSince(before)).toEqual(UNINSTALL_CALLS);
      expect(cluster.deletedJobs).toEqual([`helm-install-${chart.name}`]);
      expect(cluster.releasedUids).toEqual(['uid-1']);
      expect(cluster.events).toEqual([]);
    });
  });

  it('waits for a Job being created to be there before it deletes it: no helm install outlives the uninstall', async () => {
    const cluster = new FakeCluster();
    const creating = cluster.holdJobCreation();
    await withWorker(temporal.env, cluster, async (taskQueue) => {
      const chart = ref(uniqueName('deleted-mid-create'));
      const handle = await startChart(temporal.env, taskQueue, chart, desired('d1'));
      await until('the install creating its Job', () => cluster.calls.includes('prepareInstall'));

      await handle.signal(deleteSignal, { uid: 'uid-1' });
      try {
        // The workflow has reacted to the delete, and scheduled nothing while the Job is still being created.
        expect(scheduledActivities(await untilSignalHandled(handle))).toEqual(['prepareInstall']);
        expect(cluster.calls).toEqual(['prepareInstall']);
      } finally {
        creating.resolve();
      }
      expect(await handle.result()).toBe('deleted');
      expect(cluster.calls).toEqual(['prepareInstall', '(Job created)', ...UNINSTALL_CALLS]);
      expect(cluster.deletedJobs).toEqual([`helm-install-${chart.name}`]);
    });
  });

  it('ignores a delete meant for another uid (a chart recreated under the same name)', async () => {
    const cluster = new FakeCluster();
    await withWorker(temporal.env, cluster, async (taskQueue) => {
      const chart = ref(uniqueName('other-uid'));
      const handle = await startChart(temporal.env, taskQueue, chart, desired('d1'));
      await waitForStatus(handle, 'phase Installed', (s) => s.phase === 'Installed');
      await handle.signal(deleteSignal, { uid: 'someone-else' });
      await handle.signal(desiredStateSignal, desired('d2', { generation: 2 }));
      await waitForStatus(handle, 'd2 installed', (s) => s.installedDigest === 'd2');
      expect(cluster.calls).not.toContain('startDeleteJob');
      expect(cluster.finalizerReleased).toBe(false);
    });
  });
});

describe('a chart recreated while the old one is deleted', () => {
  it('finishes the delete of the old uid, then installs the new chart in a fresh run', async () => {
    const cluster = new FakeCluster();
    const uninstall = new Deferred<JobOutcome>();
    cluster.deleteOutcome = () => uninstall.promise;
    await withWorker(temporal.env, cluster, async (taskQueue) => {
      const chart = ref(uniqueName('recreated'));
      const handle = await startChart(temporal.env, taskQueue, chart, desired('d1'));
      await waitForStatus(handle, 'phase Installed', (s) => s.phase === 'Installed');
      const firstRun = (await handle.describe()).runId;

      await handle.signal(deleteSignal, { uid: 'uid-1' });
      await until('the uninstall waiting on its Job', () => cluster.waits.some((w) => w.jobUid === 'delete-1'));
      // kubectl apply of the same name while the old chart is Terminating: a new uid.
      await handle.signal(desiredStateSignal, desired('n1', { uid: 'uid-2' }));
      const during = await handle.query(statusQuery);
      expect(during).toMatchObject({ uid: 'uid-1', phase: 'Deleting' });
      expect(cluster.installStarts).toHaveLength(1);

      uninstall.resolve({ outcome: 'succeeded' });
      const status = await waitForStatus(
        handle,
        'the new chart installed',
        (s) => s.uid === 'uid-2' && s.phase === 'Installed',
      );
      expect(status).toMatchObject({ installedDigest: 'n1', attempt: 1 });
      expect(cluster.releasedUids).toEqual(['uid-1']);
      expect(cluster.installStarts).toEqual([
        { uid: 'uid-1', attempt: 1 },
        { uid: 'uid-2', attempt: 1 },
      ]);
      // The old chart's finalizer was released before anything was done for the new one.
      expect(cluster.calls.indexOf('releaseFinalizer')).toBeLessThan(cluster.calls.lastIndexOf('prepareInstall'));
      const next = await handle.describe();
      expect(next.runId).not.toBe(firstRun);
      expect(next.status.name).toBe('RUNNING');
      const old = await temporal.client.workflow.getHandle(handle.workflowId, firstRun).describe();
      expect(old.status.name).toBe('CONTINUED_AS_NEW');
    });
  });
});

describe('a chart gone under its uid (deleted with its finalizer removed by hand)', () => {
  it('waits for the next desired state instead of inspecting the chart again and again', async () => {
    const cluster = new FakeCluster();
    cluster.chartPresent = false;
    await withWorker(temporal.env, cluster, async (taskQueue) => {
      const chart = ref(uniqueName('gone'));
      const handle = await startChart(temporal.env, taskQueue, chart, desired('d1'));
      await until('the chart inspected', () => cluster.calls.includes('prepareInstall'));
      await untilIdle(handle);
      expect(cluster.calls).toEqual(['prepareInstall']);
      expect((await handle.query(statusQuery)).phase).toBe('Pending');

      // It comes back (the controller sees it again): the next desired state installs it.
      cluster.chartPresent = true;
      await handle.signal(desiredStateSignal, desired('d2', { generation: 2 }));
      await waitForStatus(handle, 'phase Installed', (s) => s.phase === 'Installed');
      expect(cluster.calls.filter((c) => c === 'prepareInstall')).toHaveLength(2);
    });
  });
});
