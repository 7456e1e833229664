import { tsToMs } from '@temporalio/common/lib/time.js';
import { FakeCluster } from './support/fake-activities.js';
import { temporal as proto } from '@temporalio/proto';
import {
  desired,
  historyOf,
  ref,
  startChart,
  uniqueName,
  until,
  waitForStatus,
  withWorker,
} from './support/harness.js';
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

  // A wait lost on its way to a worker costs its chart the heartbeat timeout: a minute from further back in line
  // (and from a prepareInstall recorded before it said where the chart stands: test/unit/job-slots.test.ts), 20 s
  // near the front.
  it.each([
    { place: 'far back', nearFront: false, timeout: 60, least: 59_000, most: 90_000 },
    { place: 'near the front', nearFront: true, timeout: 20, least: 19_000, most: 40_000 },
  ])(
    'takes up again within its heartbeat timeout a wait that never came back ($place: $timeout s)',
    async ({ nearFront, timeout, least, most }) => {
      const cluster = new FakeCluster();
      cluster.slotlessPrepares = 1;
      cluster.slotlessNearFront = nearFront;
      // The first wait is lost: it never returns and never heartbeats (as a task lost on its way to a worker, or
      // an attempt stuck in one). The second takes the slot at once.
      let waits = 0;
      let release = (): void => undefined;
      cluster.onSlotWait = () => {
        waits += 1;
        if (waits > 1) return;
        return new Promise<void>((resolve) => {
          release = resolve;
        });
      };
      await withWorker(temporal.env, cluster, async (taskQueue) => {
        const handle = await startChart(temporal.env, taskQueue, ref(uniqueName('slot-lost')), desired('d1'));
        try {
          await until('waiting for a slot', () => waits === 1);
          await waitForStatus(handle, 'installed d1', (s) => s.installedDigest === 'd1', most);
          const events = await historyOf(handle);
          const scheduled = events.find(
            (e) => e.activityTaskScheduledEventAttributes?.activityType?.name === 'awaitJobSlot',
          );
          expect(tsToMs(scheduled?.activityTaskScheduledEventAttributes?.heartbeatTimeout) / 1000).toBe(timeout);
          const started = events.find(
            (e) =>
              e.activityTaskStartedEventAttributes?.scheduledEventId?.toString() === scheduled?.eventId?.toString(),
          );
          expect(started?.activityTaskStartedEventAttributes?.attempt).toBe(2);
          expect(started?.activityTaskStartedEventAttributes?.lastFailure?.timeoutFailureInfo?.timeoutType).toBe(
            proto.api.enums.v1.TimeoutType.TIMEOUT_TYPE_HEARTBEAT,
          );
          // Scheduled to the retry's start: the first attempt's start, its timeout and the retry's 1 s backoff.
          const took = tsToMs(started?.eventTime) - tsToMs(scheduled?.eventTime);
          expect(took).toBeGreaterThanOrEqual(least);
          expect(took).toBeLessThan(most);
          expect(waits).toBe(2);
          expect(cluster.installStarts).toHaveLength(1);
        } finally {
          // The lost wait is let go, so the worker can shut down whatever the outcome.
          release();
        }
      });
    },
    150_000,
  );
});
