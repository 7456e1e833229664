import { FakeCluster } from './support/fake-activities.js';
import { desired, ref, startChart, uniqueName, until, waitForStatus, withWorker } from './support/harness.js';
import { useTemporal } from './support/use-temporal.js';

const temporal = useTemporal();

describe('an attempt with no Job slot free (--max-running-jobs)', () => {
  it('waits for one in awaitJobSlot, outside prepareInstall, then prepares again and installs', async () => {
    const cluster = new FakeCluster();
    cluster.slotlessPrepares = 1;
    await withWorker(temporal.env, cluster, async (taskQueue) => {
      const handle = await startChart(temporal.env, taskQueue, ref(uniqueName('slots')), desired('d1'));
      await waitForStatus(handle, 'installed d1', (s) => s.installedDigest === 'd1');
      expect(cluster.calls.slice(0, 4)).toEqual(['prepareInstall', 'awaitJobSlot', 'prepareInstall', 'awaitJob']);
      expect(cluster.installStarts).toHaveLength(1);
    });
  });

  it('is paused at once by a Temporal cancel while it waits, and creates no Job', async () => {
    const cluster = new FakeCluster();
    cluster.slotlessPrepares = 1;
    // The wait never ends by itself here; it is let go at the end so the worker can shut down.
    let release = (): void => undefined;
    cluster.onSlotWait = () =>
      new Promise<void>((resolve) => {
        release = resolve;
      });
    await withWorker(temporal.env, cluster, async (taskQueue) => {
      const handle = await startChart(temporal.env, taskQueue, ref(uniqueName('slot-cancel')), desired('d1'));
      await until('waiting for a slot', () => cluster.calls.includes('awaitJobSlot'));
      const since = Date.now();
      await handle.cancel();
      await waitForStatus(handle, 'phase Paused', (s) => s.phase === 'Paused');
      // Not held until the wait ends: the wait creates nothing, so the workflow need not let it finish.
      expect(Date.now() - since).toBeLessThan(10_000);
      expect(cluster.installStarts).toHaveLength(0);
      release();
    });
  });
});
