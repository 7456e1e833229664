import type { Worker } from '@temporalio/worker';
import { FakeCluster } from './support/fake-activities.js';
import { useTemporal } from './support/use-temporal.js';
import { createWorker, desired, ref, startChart, uniqueName, until, waitForStatus } from './support/harness.js';

const temporal = useTemporal();

/** The README's promise: a chart whose worker died resumes on another worker within 30 s, whatever the step. */
const recoveryBoundMs = 30_000;

/**
 * A worker that dies with an activity in flight: the activity never returns, never heartbeats and ignores its
 * cancellation, and the worker is forced down, so it reports nothing — as after kill -9. Only the activity's
 * timeouts can hand it to another worker.
 */
async function dyingWorker(
  taskQueue: string,
  cluster: FakeCluster,
): Promise<{ worker: Worker; running: Promise<void> }> {
  const worker = await createWorker(temporal.env, taskQueue, cluster, {
    shutdownGraceTime: '100 milliseconds',
    shutdownForceTime: '1 second',
  });
  return { worker, running: worker.run().catch(() => undefined) };
}

const hang = () => new Promise<void>(() => undefined);

describe('a worker that dies in the middle of a step', () => {
  // A plain install makes no plain call any more (its status writes ride in prepareInstall and the wait): the
  // refused chart's Failed report is one.
  const refused = (c: FakeCluster) => (c.refusal = { reason: 'InsecureRepo', message: 'http is refused' });
  it.each<
    [string, 'prepareInstall' | 'setStatus', (cluster: FakeCluster) => void, (cluster: FakeCluster) => void, string]
  >([
    [
      'a step that waits (prepareInstall: heartbeat timeout)',
      'prepareInstall',
      (c) => (c.onPrepare = hang),
      () => undefined,
      'Installed',
    ],
    [
      'a plain Kubernetes call (setStatus: start-to-close timeout)',
      'setStatus',
      (c) => {
        refused(c);
        c.onStatus = hang;
      },
      refused,
      'Failed',
    ],
  ])('%s runs again on another worker within 30 s', async (_what, step, stall, prepare, phase) => {
    const taskQueue = uniqueName('crash');
    const a = new FakeCluster();
    stall(a);
    const first = await dyingWorker(taskQueue, a);
    const handle = await startChart(temporal.env, taskQueue, ref(uniqueName(`crash-${step}`)), desired('d1'));
    await until(`worker A in ${step}`, () => a.calls.includes(step));

    first.worker.shutdown();
    await first.running;
    const died = Date.now();

    const b = new FakeCluster();
    prepare(b);
    const second = await createWorker(temporal.env, taskQueue, b);
    const running = second.run();
    try {
      await until(`worker B running ${step} again`, () => b.calls.includes(step), recoveryBoundMs);
      const recoveredMs = Date.now() - died;
      expect(recoveredMs).toBeLessThan(recoveryBoundMs);
      await waitForStatus(handle, `phase ${phase} through worker B`, (s) => s.phase === phase);
    } finally {
      second.shutdown();
      await running;
    }
  });
});
