import { FakeCluster } from './support/fake-activities.js';
import { useTemporal } from './support/use-temporal.js';
import {
  desired,
  historyOf,
  ref,
  startChart,
  summaries,
  timerSeconds,
  uniqueName,
  waitForStatus,
  withWorker,
} from './support/harness.js';

const temporal = useTemporal();

describe('the reinstall backoff', () => {
  it('grows with each failure of the same digest and stops growing at the cap: 1, 2, 4, 4 seconds', async () => {
    const cluster = new FakeCluster();
    cluster.installOutcome = (n) =>
      n <= 4 ? { outcome: 'failed', reason: 'BackoffLimitExceeded' } : { outcome: 'succeeded' };
    await withWorker(temporal.env, cluster, async (taskQueue) => {
      const chart = ref(uniqueName('broken'));
      const handle = await startChart(temporal.env, taskQueue, chart, desired('d1'), {
        backoffBaseSeconds: 1,
        backoffMaxSeconds: 4,
      });
      const status = await waitForStatus(handle, 'phase Installed after four failures', (s) => s.phase === 'Installed');
      expect(status.attempt).toBe(5);
      const events = await historyOf(handle);
      // Durable timers in the history, not sleeps in an activity: a restart resumes the wait where it was.
      expect(timerSeconds(events)).toEqual([1, 2, 4, 4]);
      const timers = events.filter(
        (e) => e.timerStartedEventAttributes !== undefined && e.timerStartedEventAttributes !== null,
      );
      expect(summaries(timers)).toEqual([
        expect.stringContaining(`Back off 1s before reinstalling ${chart.name} (failure 1)`),
        expect.stringContaining('Back off 2s'),
        expect.stringContaining('Back off 4s'),
        expect.stringContaining(`Back off 4s before reinstalling ${chart.name} (failure 4)`),
      ]);
      // Each timer fired before the next attempt: the attempts were really spaced by the backoff.
      const fired = events.filter(
        (e) => e.timerFiredEventAttributes !== undefined && e.timerFiredEventAttributes !== null,
      );
      expect(fired).toHaveLength(4);
    });
  });

  it('starts again from the base for a new digest after a success', async () => {
    const cluster = new FakeCluster();
    // d1: fail, fail, succeed; d2: fail, succeed.
    cluster.installOutcome = (n) =>
      [1, 2, 4].includes(n) ? { outcome: 'failed', reason: 'BackoffLimitExceeded' } : { outcome: 'succeeded' };
    await withWorker(temporal.env, cluster, async (taskQueue) => {
      const chart = ref(uniqueName('reset'));
      const handle = await startChart(temporal.env, taskQueue, chart, desired('d1'), {
        backoffBaseSeconds: 1,
        backoffMaxSeconds: 4,
      });
      await waitForStatus(handle, 'd1 installed', (s) => s.installedDigest === 'd1');
      await handle.signal('desiredState', desired('d2', { generation: 2 }));
      await waitForStatus(handle, 'd2 installed', (s) => s.installedDigest === 'd2');
      expect(timerSeconds(await historyOf(handle))).toEqual([1, 2, 1]);
    });
  });
});
