import { desiredStateSignal, retrySignal } from '../../workflows/contract.js';
import { FakeCluster } from './support/fake-activities.js';
import { useTemporal } from './support/use-temporal.js';
import {
  desired,
  historyOf,
  ref,
  scheduledActivities,
  startChart,
  timerSeconds,
  uniqueName,
  until,
  untilSignalHandled,
  waitForStatus,
  withWorker,
} from './support/harness.js';

const temporal = useTemporal();

/** Backoff of one second, so a reinstall loop runs in seconds. */
const fast = { backoffBaseSeconds: 1, backoffMaxSeconds: 1 };
const failed = (reason = 'BackoffLimitExceeded') => ({ outcome: 'failed' as const, reason });

describe('failurePolicy reinstall (the default)', () => {
  it('deletes each failed Job and installs again until an attempt succeeds', async () => {
    const cluster = new FakeCluster();
    cluster.installOutcome = (n) => (n < 3 ? failed() : { outcome: 'succeeded' });
    await withWorker(temporal.env, cluster, async (taskQueue) => {
      const chart = ref(uniqueName('reinstall'));
      const handle = await startChart(temporal.env, taskQueue, chart, desired('d1'), fast);
      const status = await waitForStatus(handle, 'phase Installed', (s) => s.phase === 'Installed');
      expect(status).toMatchObject({ attempt: 3, installedDigest: 'd1' });
      expect(status.lastFailure).toBeUndefined();
      expect(cluster.installStarts.map((s) => s.attempt)).toEqual([1, 2, 3]);
      expect(cluster.deletedJobs).toEqual([`helm-install-${chart.name}`, `helm-install-${chart.name}`]);
      expect(cluster.events.filter((e) => e.reason === 'HelmChartInstallFailed')).toHaveLength(2);
      // Each failed Job is deleted before the backoff and the next attempt.
      const order = cluster.calls.filter((c) => ['recordInstallFailure', 'deleteJob', 'prepareInstall'].includes(c));
      expect(order).toEqual([
        'prepareInstall',
        'recordInstallFailure',
        'deleteJob',
        'prepareInstall',
        'recordInstallFailure',
        'deleteJob',
        'prepareInstall',
      ]);
      expect(timerSeconds(await historyOf(handle))).toEqual([1, 1]);
    });
  });

  it('treats a Job stopped by its deadline (DeadlineExceeded) as a failed install', async () => {
    const cluster = new FakeCluster();
    cluster.installOutcome = (n) => (n === 1 ? failed('DeadlineExceeded') : { outcome: 'succeeded' });
    await withWorker(temporal.env, cluster, async (taskQueue) => {
      const chart = ref(uniqueName('deadline'));
      const handle = await startChart(temporal.env, taskQueue, chart, desired('d1'), fast);
      await waitForStatus(handle, 'phase Installed after a second attempt', (s) => s.phase === 'Installed');
      expect(cluster.events).toEqual([
        { type: 'Warning', reason: 'HelmChartInstallFailed', message: `helm-install-${chart.name} DeadlineExceeded` },
      ]);
      expect(cluster.deletedJobs).toEqual([`helm-install-${chart.name}`]);
      expect(cluster.installStarts.map((s) => s.attempt)).toEqual([1, 2]);
    });
  });

  it('keeps the failure on the status while it backs off', async () => {
    const cluster = new FakeCluster();
    cluster.installOutcome = () => failed('DeadlineExceeded');
    await withWorker(temporal.env, cluster, async (taskQueue) => {
      const chart = ref(uniqueName('backing-off'));
      const handle = await startChart(temporal.env, taskQueue, chart, desired('d1'), {
        backoffBaseSeconds: 300,
        backoffMaxSeconds: 300,
      });
      const status = await waitForStatus(handle, 'phase Backoff', (s) => s.phase === 'Backoff');
      expect(status.lastFailure).toEqual({ reason: 'DeadlineExceeded', digest: 'd1' });
      await until('the failed Job deleted', () => cluster.deletedJobs.length === 1);
      // A retry cuts the backoff short.
      cluster.installOutcome = () => ({ outcome: 'succeeded' });
      await handle.signal(retrySignal, { requestedBy: 'test' });
      await waitForStatus(handle, 'phase Installed after the retry', (s) => s.phase === 'Installed');
    });
  });
});

describe('failurePolicy abort', () => {
  it('stops after a failure and keeps the failed Job until a new generation arrives', async () => {
    const cluster = new FakeCluster();
    cluster.installOutcome = (n) => (n === 1 ? failed() : { outcome: 'succeeded' });
    await withWorker(temporal.env, cluster, async (taskQueue) => {
      const chart = ref(uniqueName('abort'));
      const handle = await startChart(temporal.env, taskQueue, chart, desired('d1', { failurePolicy: 'abort' }), fast);
      const status = await waitForStatus(handle, 'phase Failed', (s) => s.phase === 'Failed');
      expect(status).toMatchObject({ attempt: 1, lastFailure: { reason: 'BackoffLimitExceeded', digest: 'd1' } });
      expect(cluster.events.map((e) => e.reason)).toEqual(['HelmChartInstallFailed']);

      // A new digest of the same generation (a referenced Secret changed) is not a spec change: still stopped.
      await handle.signal(desiredStateSignal, desired('d1-secret', { failurePolicy: 'abort' }));
      await waitForStatus(handle, 'the new digest seen', (s) => s.desiredDigest === 'd1-secret');
      const events = await untilSignalHandled(handle);
      expect(scheduledActivities(events).filter((a) => a === 'prepareInstall')).toHaveLength(1);
      expect(timerSeconds(events)).toEqual([]);
      expect(cluster.calls).not.toContain('deleteJob');

      await handle.signal(desiredStateSignal, desired('d2', { generation: 2, failurePolicy: 'abort' }));
      const after = await waitForStatus(handle, 'phase Installed', (s) => s.phase === 'Installed');
      expect(after).toMatchObject({ attempt: 2, installedDigest: 'd2' });
      // The failed Job was never deleted by the workflow: the next attempt's prepareInstall replaces it.
      expect(cluster.calls).not.toContain('deleteJob');
    });
  });

  it('installs again when a retry is signalled, and the event names who asked', async () => {
    const cluster = new FakeCluster();
    cluster.installOutcome = (n) => (n === 1 ? failed() : { outcome: 'succeeded' });
    await withWorker(temporal.env, cluster, async (taskQueue) => {
      const chart = ref(uniqueName('abort-retry'));
      const handle = await startChart(temporal.env, taskQueue, chart, desired('d1', { failurePolicy: 'abort' }), fast);
      await waitForStatus(handle, 'phase Failed', (s) => s.phase === 'Failed');
      await handle.signal(retrySignal, { requestedBy: 'cli:alice' });
      const after = await waitForStatus(handle, 'phase Installed', (s) => s.phase === 'Installed');
      expect(after).toMatchObject({ attempt: 2, installedDigest: 'd1' });
      expect(cluster.events).toContainEqual({
        type: 'Normal',
        reason: 'HelmChartRetry',
        message: 'retry requested by cli:alice',
      });
      expect(cluster.calls).not.toContain('deleteJob');
    });
  });
});

describe('failurePolicy retry', () => {
  it('stops after a failure until anything in the desired state changes', async () => {
    const cluster = new FakeCluster();
    cluster.installOutcome = (n) => (n === 1 ? failed() : { outcome: 'succeeded' });
    await withWorker(temporal.env, cluster, async (taskQueue) => {
      const chart = ref(uniqueName('retry'));
      const handle = await startChart(temporal.env, taskQueue, chart, desired('d1', { failurePolicy: 'retry' }), fast);
      await waitForStatus(handle, 'phase Failed', (s) => s.phase === 'Failed');

      // The same desired state again (a controller resync) does not start an attempt, once the workflow has
      // handled it (not merely before it got to it).
      await handle.signal(desiredStateSignal, desired('d1', { failurePolicy: 'retry' }));
      const events = await untilSignalHandled(handle);
      expect(scheduledActivities(events).filter((a) => a === 'prepareInstall')).toHaveLength(1);
      expect(timerSeconds(events)).toEqual([]);

      // Any new digest, even of the same generation (a values Secret changed), runs it again.
      await handle.signal(desiredStateSignal, desired('d1-secret', { failurePolicy: 'retry' }));
      const after = await waitForStatus(handle, 'phase Installed', (s) => s.phase === 'Installed');
      expect(after).toMatchObject({ attempt: 2, installedDigest: 'd1-secret' });
      expect(cluster.calls).not.toContain('deleteJob');
    });
  });
});

describe('a refused chart', () => {
  it('sets Failed with the reason, creates no Job, and waits for a new digest', async () => {
    const cluster = new FakeCluster();
    cluster.refusal = { reason: 'InsecureRepo', message: 'http:// is refused' };
    await withWorker(temporal.env, cluster, async (taskQueue) => {
      const chart = ref(uniqueName('refused'));
      const handle = await startChart(temporal.env, taskQueue, chart, desired('d1'), fast);
      const status = await waitForStatus(handle, 'phase Failed', (s) => s.phase === 'Failed');
      expect(status.lastFailure).toEqual({ reason: 'InsecureRepo', digest: 'd1' });
      expect(cluster.installStarts).toEqual([]);
      expect(cluster.statuses[0]?.conditions).toEqual([
        { type: 'Failed', status: 'True', reason: 'InsecureRepo', message: 'http:// is refused' },
      ]);
      cluster.refusal = undefined;
      await handle.signal(desiredStateSignal, desired('d2'));
      await waitForStatus(handle, 'phase Installed', (s) => s.phase === 'Installed');
    });
  });
});

describe('a failed or refused change, changed back to what is installed', () => {
  it('a refusal: installs the installed state again, so the chart says Installed, not the refusal', async () => {
    const cluster = new FakeCluster();
    await withWorker(temporal.env, cluster, async (taskQueue) => {
      const chart = ref(uniqueName('refused-back'));
      const handle = await startChart(temporal.env, taskQueue, chart, desired('d1'), fast);
      await waitForStatus(handle, 'd1 installed', (s) => s.phase === 'Installed');
      cluster.refusal = { reason: 'InvalidCrds', message: 'annotation helm.k3sm.io/crds is "aply"' };
      await handle.signal(desiredStateSignal, desired('d2'));
      await waitForStatus(handle, 'd2 refused', (s) => s.phase === 'Failed');
      cluster.refusal = undefined;
      await handle.signal(desiredStateSignal, desired('d1'));
      const after = await waitForStatus(handle, 'd1 installed again', (s) => s.phase === 'Installed');
      expect(after).toMatchObject({ attempt: 3, installedDigest: 'd1' });
      expect(after.lastFailure).toBeUndefined();
      expect(cluster.installStarts.map((s) => s.attempt)).toEqual([1, 3]);
      expect(cluster.statuses.at(-1)?.conditions).toContainEqual(
        expect.objectContaining({ type: 'Failed', status: 'False' }),
      );
    });
  });

  it.each(['reinstall', 'retry'] as const)(
    'a failed Job under %s: installs the installed state again, since the failed upgrade may have changed the release',
    async (failurePolicy) => {
      const cluster = new FakeCluster();
      cluster.installOutcome = (n) => (n === 2 ? failed() : { outcome: 'succeeded' });
      await withWorker(temporal.env, cluster, async (taskQueue) => {
        const chart = ref(uniqueName(`failed-back-${failurePolicy}`));
        // A long backoff: under reinstall, d1 arrives while the failed d2 waits to be tried again.
        const slow = { backoffBaseSeconds: 600, backoffMaxSeconds: 600 };
        const handle = await startChart(temporal.env, taskQueue, chart, desired('d1', { failurePolicy }), slow);
        await waitForStatus(handle, 'd1 installed', (s) => s.phase === 'Installed');
        await handle.signal(desiredStateSignal, desired('d2', { failurePolicy }));
        const held = failurePolicy === 'reinstall' ? 'Backoff' : 'Failed';
        await waitForStatus(handle, `d2 failed, ${held}`, (s) => s.phase === held);
        await handle.signal(desiredStateSignal, desired('d1', { failurePolicy }));
        const after = await waitForStatus(handle, 'd1 installed again', (s) => s.phase === 'Installed');
        expect(after).toMatchObject({ attempt: 3, installedDigest: 'd1' });
        expect(cluster.installStarts.map((s) => s.attempt)).toEqual([1, 2, 3]);
      });
    },
  );

  it('a failed Job under abort: the same generation changed back waits; a new generation installs it again', async () => {
    const cluster = new FakeCluster();
    cluster.installOutcome = (n) => (n === 2 ? failed() : { outcome: 'succeeded' });
    await withWorker(temporal.env, cluster, async (taskQueue) => {
      const chart = ref(uniqueName('failed-back-abort'));
      const abort = (digest: string, generation: number) => desired(digest, { generation, failurePolicy: 'abort' });
      const handle = await startChart(temporal.env, taskQueue, chart, abort('d1', 1), fast);
      await waitForStatus(handle, 'd1 installed', (s) => s.phase === 'Installed');
      await handle.signal(desiredStateSignal, abort('d2', 2));
      await waitForStatus(handle, 'd2 failed, held', (s) => s.phase === 'Failed');
      // A values Secret changed back: the digest returns, the generation does not; abort holds the failed Job.
      await handle.signal(desiredStateSignal, abort('d1', 2));
      const events = await untilSignalHandled(handle);
      expect(scheduledActivities(events).filter((a) => a === 'prepareInstall')).toHaveLength(2);
      await handle.signal(desiredStateSignal, abort('d1', 3));
      const after = await waitForStatus(handle, 'd1 installed again', (s) => s.phase === 'Installed');
      expect(after).toMatchObject({ attempt: 3, installedDigest: 'd1' });
    });
  });
});
