import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { waitFor } from '../../../src/lib/wait.js';
import { deleteSignal, desiredStateSignal } from '../../../workflows/contract.js';
import { FakeCluster, never } from './fake-activities.js';
import {
  desired,
  ref,
  startChart,
  until,
  untilCancelHandled,
  waitForStatus,
  withWorker,
  type ChartHandle,
} from './harness.js';

/** A run whose history is recorded: which workflow and run. */
export interface RecordedRun {
  workflowId: string;
  runId: string;
}

/**
 * Representative runs of the chart workflow, recorded as history fixtures (scripts/record-histories.ts) and
 * replayed against the current workflow code (replay.test.ts), so a change that is not deterministic fails.
 */
export const scenarios: Record<string, (env: TestWorkflowEnvironment) => Promise<RecordedRun>> = {
  /** Install, then delete: uninstall, finalizer, completed. */
  'install-then-delete': async (env) => {
    const cluster = new FakeCluster();
    return withWorker(env, cluster, async (taskQueue) => {
      const handle = await startChart(env, taskQueue, ref('replay-success'), desired('d1'));
      await waitForStatus(handle, 'Installed', (s) => s.phase === 'Installed');
      await handle.signal(deleteSignal, { uid: 'uid-1' });
      await handle.result();
      return runOf(handle);
    });
  },

  /** failurePolicy reinstall: two failures with a growing backoff, then success, then delete. */
  'reinstall-with-backoff': async (env) => {
    const cluster = new FakeCluster();
    cluster.installOutcome = (n) =>
      n <= 2 ? { outcome: 'failed', reason: 'BackoffLimitExceeded' } : { outcome: 'succeeded' };
    return withWorker(env, cluster, async (taskQueue) => {
      const handle = await startChart(env, taskQueue, ref('replay-reinstall'), desired('d1'), {
        backoffBaseSeconds: 1,
        backoffMaxSeconds: 4,
      });
      await waitForStatus(handle, 'Installed', (s) => s.phase === 'Installed');
      await handle.signal(deleteSignal, { uid: 'uid-1' });
      await handle.result();
      return runOf(handle);
    });
  },

  /** failurePolicy abort: a failure stops the chart until a new generation, which installs; then delete. */
  'abort-until-new-generation': async (env) => {
    const cluster = new FakeCluster();
    cluster.installOutcome = (n) =>
      n === 1 ? { outcome: 'failed', reason: 'BackoffLimitExceeded' } : { outcome: 'succeeded' };
    return withWorker(env, cluster, async (taskQueue) => {
      const handle = await startChart(env, taskQueue, ref('replay-abort'), desired('d1', { failurePolicy: 'abort' }));
      await waitForStatus(handle, 'Failed', (s) => s.phase === 'Failed');
      await handle.signal(desiredStateSignal, desired('d2', { generation: 2, failurePolicy: 'abort' }));
      await waitForStatus(handle, 'Installed', (s) => s.phase === 'Installed');
      await handle.signal(deleteSignal, { uid: 'uid-1' });
      await handle.result();
      return runOf(handle);
    });
  },

  /** A delete while the install Job runs: the attempt is cancelled, then uninstall (which fails) and finalizer. */
  'delete-mid-install': async (env) => {
    const cluster = new FakeCluster();
    cluster.installOutcome = () => never();
    cluster.deleteOutcome = () => ({ outcome: 'failed', reason: 'BackoffLimitExceeded' });
    return withWorker(env, cluster, async (taskQueue) => {
      const handle = await startChart(env, taskQueue, ref('replay-delete'), desired('d1'));
      await until('the install waiting', () => cluster.waits.length === 1);
      await handle.signal(deleteSignal, { uid: 'uid-1' });
      await handle.result();
      return runOf(handle);
    });
  },

  /** Temporal cancel during an attempt: Job deleted, paused, continued as new (the recorded run ends there). */
  'cancel-then-pause': async (env) => {
    const cluster = new FakeCluster();
    cluster.installOutcome = () => never();
    return withWorker(env, cluster, async (taskQueue) => {
      const handle = await startChart(env, taskQueue, ref('replay-cancel'), desired('d1'));
      await until('the install waiting', () => cluster.waits.length === 1);
      const first = await runOf(handle);
      await handle.cancel();
      return pausedRun(env, cluster, first);
    });
  },

  /** Temporal cancel while the attempt creates its Job: the Job is let be created, then deleted; paused. */
  'cancel-mid-create': async (env) => {
    const cluster = new FakeCluster();
    cluster.installOutcome = () => never();
    const creating = cluster.holdJobCreation();
    return withWorker(env, cluster, async (taskQueue) => {
      const handle = await startChart(env, taskQueue, ref('replay-cancel-mid-create'), desired('d1'));
      await until('the install creating its Job', () => cluster.calls.includes('prepareInstall'));
      const first = await runOf(handle);
      await handle.cancel();
      try {
        await untilCancelHandled(handle, first.runId);
      } finally {
        creating.resolve();
      }
      return pausedRun(env, cluster, first);
    });
  },

  /** Installed, a change refused, then changed back: the installed state installs again (Installed); then delete. */
  'refused-change-changed-back': async (env) => {
    const cluster = new FakeCluster();
    return withWorker(env, cluster, async (taskQueue) => {
      const handle = await startChart(env, taskQueue, ref('replay-refused-back'), desired('d1'));
      await waitForStatus(handle, 'Installed', (s) => s.phase === 'Installed');
      cluster.refusal = { reason: 'InvalidCrds', message: 'annotation helm.k3sm.io/crds is "aply"' };
      await handle.signal(desiredStateSignal, desired('d2'));
      await waitForStatus(handle, 'Failed', (s) => s.phase === 'Failed');
      cluster.refusal = undefined;
      await handle.signal(desiredStateSignal, desired('d1'));
      await waitForStatus(handle, 'Installed again', (s) => s.phase === 'Installed' && s.attempt === 3);
      await handle.signal(deleteSignal, { uid: 'uid-1' });
      await handle.result();
      return runOf(handle);
    });
  },
};

/** The cancelled run `first`, once it has said HelmChartPaused and continued as new. */
async function pausedRun(env: TestWorkflowEnvironment, cluster: FakeCluster, first: RecordedRun): Promise<RecordedRun> {
  await until('HelmChartPaused recorded', () => cluster.events.some((e) => e.reason === 'HelmChartPaused'));
  const old = env.client.workflow.getHandle(first.workflowId, first.runId);
  await waitFor('the cancelled run continued as new', async () => {
    return (await old.describe()).status.name === 'CONTINUED_AS_NEW';
  });
  return first;
}

async function runOf(handle: ChartHandle): Promise<RecordedRun> {
  return { workflowId: handle.workflowId, runId: (await handle.describe()).runId };
}
