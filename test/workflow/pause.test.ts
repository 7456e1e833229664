import { waitFor } from '../../src/lib/wait.js';
import { desiredStateSignal, retrySignal, statusQuery } from '../../workflows/contract.js';
import { FakeCluster, never } from './support/fake-activities.js';
import { useTemporal } from './support/use-temporal.js';
import {
  desired,
  historyOf,
  ref,
  scheduledActivities,
  startChart,
  summaries,
  uniqueName,
  until,
  untilCancelHandled,
  untilIdle,
  waitForStatus,
  withWorker,
} from './support/harness.js';

const temporal = useTemporal();

const pausedCondition = {
  type: 'Paused',
  status: 'True',
  reason: 'Cancelled',
  message: 'cancelled through Temporal: paused until the spec changes or a retry is requested',
};

describe('Temporal cancel of a chart workflow', () => {
  it('stops the running attempt, deletes its Job and pauses; a retry signal installs again and says who asked', async () => {
    const cluster = new FakeCluster();
    cluster.installOutcome = (n) => (n === 1 ? never() : { outcome: 'succeeded' });
    await withWorker(temporal.env, cluster, async (taskQueue) => {
      const chart = ref(uniqueName('cancelled'));
      const handle = await startChart(temporal.env, taskQueue, chart, desired('d1'));
      await until('attempt 1 waiting on its Job', () => cluster.waits.length === 1);
      const firstRun = (await handle.describe()).runId;

      await handle.cancel();
      const paused = await waitForStatus(handle, 'phase Paused', (s) => s.phase === 'Paused');
      expect(paused.attempt).toBe(1);
      expect(paused.installedDigest).toBeUndefined();
      await until('the attempt stopped', () => cluster.waits[0]?.ended === 'cancelled');
      await until('HelmChartPaused recorded', () => cluster.events.length > 0);
      expect(cluster.deletedJobs).toEqual([`helm-install-${chart.name}`]);
      expect(cluster.statuses.at(-1)).toEqual({ phase: 'Paused', conditions: [pausedCondition] });
      expect(cluster.events).toEqual([{ type: 'Normal', reason: 'HelmChartPaused', message: pausedCondition.message }]);
      // The cancelled run's history names the pause in the Temporal UI, not just "setStatus" and "recordEvent".
      expect(summaries(await historyOf(handle, firstRun))).toEqual(
        expect.arrayContaining([
          expect.stringContaining(`Status of HelmChart kube-system/${chart.name}: Paused, Paused=True (Cancelled)`),
          expect.stringContaining(`Event Normal HelmChartPaused on HelmChart kube-system/${chart.name}`),
        ]),
      );

      // A person is waiting on the pause: its steps go ahead of other charts' work on the task queue.
      const pauseSteps = (await historyOf(handle, firstRun))
        .map((e) => e.activityTaskScheduledEventAttributes)
        .filter((a) => a?.activityType?.name === 'deleteJob' || a?.activityType?.name === 'setStatus');
      expect(pauseSteps.map((a) => a?.priority?.priorityKey)).toEqual([1, 1]);

      // The workflow keeps running, in a fresh run (so it can be cancelled again), and stays paused.
      const description = await waitFor(
        'a new run after the cancelled one',
        async () => {
          const d = await handle.describe();
          return d.runId !== firstRun ? d : undefined;
        },
        { timeoutMs: 15_000, intervalMs: 100 },
      );
      expect(description.status.name).toBe('RUNNING');
      const old = await temporal.client.workflow.getHandle(handle.workflowId, firstRun).describe();
      expect(old.status.name).toBe('CONTINUED_AS_NEW');
      await untilIdle(handle);
      expect(cluster.installStarts).toHaveLength(1);

      await handle.signal(retrySignal, { requestedBy: 'test' });
      const status = await waitForStatus(handle, 'phase Installed after the retry', (s) => s.phase === 'Installed');
      expect(status).toMatchObject({ attempt: 2, installedDigest: 'd1' });
      const message = 'retry requested by test; the chart is no longer paused';
      expect(cluster.events.at(-1)).toEqual({ type: 'Normal', reason: 'HelmChartRetry', message });
      expect(cluster.statuses).toContainEqual({
        conditions: [{ type: 'Paused', status: 'False', reason: 'RetryRequested', message }],
      });
    });
  });

  it('lets a Job being created be created first, then deletes it and pauses: no helm install outlives the pause', async () => {
    const cluster = new FakeCluster();
    cluster.installOutcome = () => never();
    const creating = cluster.holdJobCreation();
    await withWorker(temporal.env, cluster, async (taskQueue) => {
      const chart = ref(uniqueName('cancel-mid-create'));
      const handle = await startChart(temporal.env, taskQueue, chart, desired('d1'));
      await until('the install creating its Job', () => cluster.calls.includes('prepareInstall'));

      await handle.cancel();
      try {
        // The workflow has reacted to the cancel, and scheduled nothing while the Job is still being created.
        expect(scheduledActivities(await untilCancelHandled(handle))).toEqual(['prepareInstall']);
        expect(cluster.calls).toEqual(['prepareInstall']);
      } finally {
        creating.resolve();
      }
      await waitForStatus(handle, 'phase Paused', (s) => s.phase === 'Paused');
      await until('HelmChartPaused recorded', () => cluster.events.length > 0);
      expect(cluster.calls).toEqual(['prepareInstall', '(Job created)', 'deleteJob', 'setStatus', 'recordEvent']);
      expect(cluster.deletedJobs).toEqual([`helm-install-${chart.name}`]);
      // The pause is written after the step's JobCreated (phase Installing), so the chart ends up saying Paused.
      expect(cluster.statuses.at(-1)).toEqual({ phase: 'Paused', conditions: [pausedCondition] });
    });
  });

  it('pauses a chart that is already installed; a new desired state of the same generation does not unpause it', async () => {
    const cluster = new FakeCluster();
    await withWorker(temporal.env, cluster, async (taskQueue) => {
      const chart = ref(uniqueName('cancel-idle'));
      const handle = await startChart(temporal.env, taskQueue, chart, desired('d1'));
      await waitForStatus(handle, 'phase Installed', (s) => s.phase === 'Installed');
      await handle.cancel();
      await waitForStatus(handle, 'phase Paused', (s) => s.phase === 'Paused');
      await until('HelmChartPaused recorded', () => cluster.events.length > 0);
      await handle.signal(desiredStateSignal, desired('d1-secret'));
      await waitForStatus(handle, 'the new digest seen', (s) => s.desiredDigest === 'd1-secret');
      await untilIdle(handle);
      expect((await handle.query(statusQuery)).phase).toBe('Paused');
      expect(cluster.installStarts).toHaveLength(1);
    });
  });

  it('unpauses when a new generation of the spec arrives', async () => {
    const cluster = new FakeCluster();
    cluster.installOutcome = (n) => (n === 1 ? never() : { outcome: 'succeeded' });
    await withWorker(temporal.env, cluster, async (taskQueue) => {
      const chart = ref(uniqueName('cancel-then-edit'));
      const handle = await startChart(temporal.env, taskQueue, chart, desired('d1'));
      await until('attempt 1 waiting on its Job', () => cluster.waits.length === 1);
      await handle.cancel();
      await waitForStatus(handle, 'phase Paused', (s) => s.phase === 'Paused');

      await handle.signal(desiredStateSignal, desired('d2', { generation: 2 }));
      const status = await waitForStatus(handle, 'd2 installed', (s) => s.phase === 'Installed');
      expect(status).toMatchObject({ installedDigest: 'd2', attempt: 2 });
      // The chart no longer says it is paused.
      const paused = cluster.statuses.flatMap((u) => u.conditions).filter((c) => c.type === 'Paused');
      expect(paused).toEqual([
        pausedCondition,
        {
          type: 'Paused',
          status: 'False',
          reason: 'SpecChanged',
          message: 'generation 2 of the spec arrived; the chart is no longer paused',
        },
      ]);
    });
  });

  it('can be cancelled again after a retry', async () => {
    const cluster = new FakeCluster();
    cluster.installOutcome = () => never();
    await withWorker(temporal.env, cluster, async (taskQueue) => {
      const chart = ref(uniqueName('cancel-twice'));
      const handle = await startChart(temporal.env, taskQueue, chart, desired('d1'));
      await until('attempt 1 waiting', () => cluster.waits.length === 1);
      await handle.cancel();
      await waitForStatus(handle, 'phase Paused', (s) => s.phase === 'Paused');
      await handle.signal(retrySignal, { requestedBy: 'test' });
      await until('attempt 2 waiting', () => cluster.waits.length === 2);
      await handle.cancel();
      await until('attempt 2 stopped', () => cluster.waits[1]?.ended === 'cancelled');
      await waitForStatus(handle, 'phase Paused again', (s) => s.phase === 'Paused');
      // The phase turns Paused before the event is recorded: wait for the event itself.
      await until('the second HelmChartPaused recorded', () => cluster.events.length === 3);
      expect(cluster.events.map((e) => e.reason)).toEqual(['HelmChartPaused', 'HelmChartRetry', 'HelmChartPaused']);
    });
  });
});
