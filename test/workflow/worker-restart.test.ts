import type { Worker } from '@temporalio/worker';
import { FakeCluster, never } from './support/fake-activities.js';
import { useTemporal } from './support/use-temporal.js';
import { createWorker, desired, ref, startChart, uniqueName, until, waitForStatus } from './support/harness.js';

const temporal = useTemporal();

async function startWorker(
  taskQueue: string,
  cluster: FakeCluster,
): Promise<{ worker: Worker; running: Promise<void> }> {
  const worker = await createWorker(temporal.env, taskQueue, cluster);
  return { worker, running: worker.run() };
}

describe('a worker that stops while a chart waits on its Job', () => {
  it('hands the wait to another worker, which resumes it without creating the Job again', async () => {
    const taskQueue = uniqueName('restart');
    const chart = ref(uniqueName('resumed'));
    // Worker A: the Job never finishes while A watches it.
    const a = new FakeCluster();
    a.installOutcome = () => never();
    const first = await startWorker(taskQueue, a);
    const handle = await startChart(temporal.env, taskQueue, chart, desired('d1'));
    await until('worker A waiting on the Job', () => a.waits.length === 1);

    first.worker.shutdown();
    await first.running;
    expect(a.waits[0]?.ended).toBe('cancelled');
    // With no worker, Temporal keeps the wait pending, to be retried: the workflow does not see a failure.
    const pending = (await handle.describe()).raw.pendingActivities ?? [];
    expect(pending.map((p) => p.activityType?.name)).toEqual(['awaitJob']);

    // Worker B: the same Job, as B finds it, has succeeded.
    const b = new FakeCluster();
    const second = await startWorker(taskQueue, b);
    try {
      const status = await waitForStatus(
        handle,
        'phase Installed through worker B',
        (s) => s.phase === 'Installed',
        60_000,
      );
      expect(status).toMatchObject({ installedDigest: 'd1', attempt: 1 });
      // B resumed the wait (a retry of the same activity) on the Job A created: no new Job, no new attempt.
      expect(b.waits).toEqual([{ jobUid: 'install-1', activityAttempt: 2, ended: 'outcome', failedPodsReported: 0 }]);
      expect(b.installStarts).toEqual([]);
      expect(a.installStarts).toEqual([{ uid: 'uid-1', attempt: 1 }]);
      expect(b.calls).toEqual(['awaitJob', 'setStatus', 'recordRelease']);
    } finally {
      second.worker.shutdown();
      await second.running;
    }
  });
});
