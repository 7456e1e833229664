import { waitFor } from '../../src/lib/wait.js';
import { deleteSignal, desiredStateSignal, statusQuery } from '../../workflows/contract.js';
import { Deferred, FakeCluster } from './support/fake-activities.js';
import { useTemporal } from './support/use-temporal.js';
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
  type ChartHandle,
} from './support/harness.js';

// This file's own server suggests continue-as-new once a run's history passes 15 events: one install is enough.
const temporal = useTemporal(['--dynamic-config-value', 'limit.historyCount.suggestContinueAsNew=15']);

const runOf = async (handle: ChartHandle): Promise<string> => (await handle.describe()).runId;

/** Waits for the chart's workflow to be in a run other than `previous`; returns the new run's id. */
async function runAfter(handle: ChartHandle, previous: string): Promise<string> {
  return waitFor(
    `a run of ${handle.workflowId} after ${previous}`,
    async () => {
      const runId = await runOf(handle);
      return runId !== previous ? runId : undefined;
    },
    { timeoutMs: 30_000, intervalMs: 100 },
  );
}

async function statusOfRun(handle: ChartHandle, runId: string): Promise<string> {
  return (await temporal.client.workflow.getHandle(handle.workflowId, runId).describe()).status.name;
}

/** Waits until the run has handled its last signal: a workflow task completed after it. */
async function settled(handle: ChartHandle, runId: string): Promise<void> {
  await waitFor(
    'the last signal handled',
    async () => {
      const events = await historyOf(handle, runId);
      const last = (has: (e: (typeof events)[number]) => unknown) => events.findLastIndex((e) => has(e));
      return (
        last((e) => e.workflowTaskCompletedEventAttributes) > last((e) => e.workflowExecutionSignaledEventAttributes)
      );
    },
    { timeoutMs: 15_000, intervalMs: 50 },
  );
}

/** Holds the status write that reports `phase` (the first one) open until the test releases it. */
function holdStatus(cluster: FakeCluster, phase: string): { held: () => boolean; release: () => void } {
  const gate = new Deferred<undefined>();
  let held = false;
  cluster.onStatus = async (update) => {
    if (update.phase !== phase || held) return;
    held = true;
    await gate.promise;
  };
  return {
    held: () => held,
    release: () => {
      gate.resolve(undefined);
    },
  };
}

describe('continue-as-new when Temporal suggests it', () => {
  it('carries the installed digest and the attempt count into the new run, which does not install again', async () => {
    const cluster = new FakeCluster();
    await withWorker(temporal.env, cluster, async (taskQueue) => {
      const chart = ref(uniqueName('carried'));
      const handle = await startChart(temporal.env, taskQueue, chart, desired('d1'));
      const first = await runOf(handle);
      const second = await runAfter(handle, first);
      expect(await statusOfRun(handle, first)).toBe('CONTINUED_AS_NEW');
      const status = await handle.query(statusQuery);
      expect(status).toMatchObject({ phase: 'Installed', installedDigest: 'd1', desiredDigest: 'd1', attempt: 1 });
      await untilIdle(handle);
      expect(scheduledActivities(await historyOf(handle, second))).toEqual([]);
      expect(cluster.installStarts).toHaveLength(1);

      await handle.signal(desiredStateSignal, desired('d2', { generation: 2 }));
      const after = await waitForStatus(handle, 'd2 installed', (s) => s.installedDigest === 'd2');
      expect(after.attempt).toBe(2);
      expect(cluster.installStarts.map((s) => s.attempt)).toEqual([1, 2]);
    });
  });

  it('does not lose a desired state signalled just as the run is about to continue as new', async () => {
    const cluster = new FakeCluster();
    const gate = holdStatus(cluster, 'Installed');
    await withWorker(temporal.env, cluster, async (taskQueue) => {
      const chart = ref(uniqueName('switch'));
      const handle = await startChart(temporal.env, taskQueue, chart, desired('d1'));
      const first = await runOf(handle);
      // The last activity of the install (the wait, writing its success report) is running; when it completes the
      // run will continue as new.
      await until('the Installed status write in flight', gate.held);
      await handle.signal(desiredStateSignal, desired('d2', { generation: 2 }));
      gate.release();

      const status = await waitForStatus(handle, 'd2 installed', (s) => s.installedDigest === 'd2');
      expect(status.attempt).toBe(2);
      expect(await statusOfRun(handle, first)).toBe('CONTINUED_AS_NEW');
      // The first run received it, and handed it over with its state: the second run installed d2, once.
      const firstHistory = await historyOf(handle, first);
      expect(firstHistory.filter((e) => e.workflowExecutionSignaledEventAttributes)).toHaveLength(2);
      expect(cluster.installStarts.map((s) => s.attempt)).toEqual([1, 2]);
    });
  });

  it('does not lose a delete signalled just as the run is about to continue as new', async () => {
    const cluster = new FakeCluster();
    const gate = holdStatus(cluster, 'Installed');
    await withWorker(temporal.env, cluster, async (taskQueue) => {
      const chart = ref(uniqueName('switch-delete'));
      const handle = await startChart(temporal.env, taskQueue, chart, desired('d1'));
      await until('the Installed status write in flight', gate.held);
      await handle.signal(deleteSignal, { uid: 'uid-1' });
      gate.release();
      expect(await handle.result()).toBe('deleted');
      expect(cluster.releasedUids).toEqual(['uid-1']);
    });
  });

  it('keeps every run converging on the last of a burst of desired states sent across several switches', async () => {
    const cluster = new FakeCluster();
    await withWorker(temporal.env, cluster, async (taskQueue) => {
      const chart = ref(uniqueName('burst'));
      const handle = await startChart(temporal.env, taskQueue, chart, desired('b0'));
      const first = await runOf(handle);
      for (let i = 1; i <= 12; i += 1) {
        await handle.signal(desiredStateSignal, desired(`b${i}`, { generation: i + 1 }));
      }
      const status = await waitForStatus(handle, 'b12 installed', (s) => s.installedDigest === 'b12');
      expect(status.desiredDigest).toBe('b12');
      expect(await statusOfRun(handle, first)).toBe('CONTINUED_AS_NEW');
      // Attempts are numbered on across runs (an attempt superseded before its Job skips a number): none reset.
      const attempts = cluster.installStarts.map((s) => s.attempt);
      expect(attempts).toEqual([...attempts].sort((a, b) => a - b));
      expect(new Set(attempts).size).toBe(attempts.length);
      expect(status.attempt).toBe(attempts.at(-1));
    });
  });

  it('continues as new while idle when signals alone grow the history (a controller resyncing)', async () => {
    const cluster = new FakeCluster();
    await withWorker(temporal.env, cluster, async (taskQueue) => {
      const chart = ref(uniqueName('resync'));
      const handle = await startChart(temporal.env, taskQueue, chart, desired('d1'));
      const first = await runOf(handle);
      const second = await runAfter(handle, first);
      await untilIdle(handle);
      // The same desired state again and again, each handled in its own workflow task, as a resync would be.
      for (let i = 0; i < 15 && (await runOf(handle)) === second; i += 1) {
        await handle.signal(desiredStateSignal, desired('d1'));
        await settled(handle, second);
      }
      const third = await runAfter(handle, second);
      expect(await statusOfRun(handle, second)).toBe('CONTINUED_AS_NEW');
      expect(await handle.query(statusQuery)).toMatchObject({ phase: 'Installed', installedDigest: 'd1' });
      expect(scheduledActivities(await historyOf(handle, third))).toEqual([]);
      expect(cluster.installStarts).toHaveLength(1);
    });
  });

  it('continues as new between the attempts of a chart that keeps failing under reinstall', async () => {
    const cluster = new FakeCluster();
    cluster.installOutcome = () => ({ outcome: 'failed', reason: 'BackoffLimitExceeded' });
    await withWorker(temporal.env, cluster, async (taskQueue) => {
      const chart = ref(uniqueName('broken'));
      const handle = await startChart(temporal.env, taskQueue, chart, desired('d1'), {
        backoffBaseSeconds: 1,
        backoffMaxSeconds: 1,
      });
      const first = await runOf(handle);
      const second = await runAfter(handle, first);
      expect(await statusOfRun(handle, first)).toBe('CONTINUED_AS_NEW');
      await until('an attempt in the new run', () => cluster.installStarts.length >= 3);
      // The failure count and the attempt number went along: attempts are numbered on, never reset.
      const attempts = cluster.installStarts.map((s) => s.attempt);
      expect(attempts).toEqual(attempts.map((_, i) => i + 1));
      const status = await handle.query(statusQuery);
      expect(status.lastFailure).toEqual({ reason: 'BackoffLimitExceeded', digest: 'd1' });
      expect(scheduledActivities(await historyOf(handle, second))).toContain('prepareInstall');
      await handle.signal(deleteSignal, { uid: 'uid-1' });
      expect(await handle.result()).toBe('deleted');
    });
  });
});
