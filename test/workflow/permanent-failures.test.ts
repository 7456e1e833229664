import { ApplicationFailure } from '@temporalio/common';
import { permanentFailure } from '../../activities/failures.js';
import { deleteSignal, desiredStateSignal, statusQuery } from '../../workflows/contract.js';
import { FakeCluster } from './support/fake-activities.js';
import { useTemporal } from './support/use-temporal.js';
import {
  desired,
  historyOf,
  ref,
  startChart,
  timerSeconds,
  uniqueName,
  untilIdle,
  waitForStatus,
  withWorker,
} from './support/harness.js';

const temporal = useTemporal();

const quota = (name: string) =>
  `jobs.batch "helm-install-${name}" is forbidden: exceeded quota: no-jobs, requested: count/jobs.batch=1`;

describe('an install step the apiserver refuses for good (a permanent failure)', () => {
  it('ends the attempt at once: Failed=True with the reason, a Warning naming the object, no retry loop', async () => {
    const cluster = new FakeCluster();
    const chart = ref(uniqueName('quota'));
    cluster.throwIn.prepareInstall = () => permanentFailure('QuotaExceeded', quota(chart.name));
    await withWorker(temporal.env, cluster, async (taskQueue) => {
      const handle = await startChart(temporal.env, taskQueue, chart, desired('d1', { failurePolicy: 'abort' }));
      const status = await waitForStatus(handle, 'phase Failed', (s) => s.phase === 'Failed');
      expect(status.lastFailure).toEqual({ reason: 'QuotaExceeded', digest: 'd1' });
      expect(cluster.statuses).toEqual([
        {
          phase: 'Failed',
          conditions: [{ type: 'Failed', status: 'True', reason: 'QuotaExceeded', message: quota(chart.name) }],
        },
      ]);
      expect(cluster.events).toEqual([
        { type: 'Warning', reason: 'HelmChartInstallFailed', message: `QuotaExceeded: ${quota(chart.name)}` },
      ]);
      // Not retried by Temporal, not looped by the workflow: one call, then the chart waits for a spec change.
      await untilIdle(handle);
      expect(cluster.calls.filter((c) => c === 'prepareInstall')).toHaveLength(1);

      // The quota is lifted and the spec changes: the next generation installs.
      cluster.throwIn = {};
      await handle.signal(desiredStateSignal, desired('d2', { generation: 2, failurePolicy: 'abort' }));
      await waitForStatus(handle, 'phase Installed', (s) => s.phase === 'Installed');
    });
  });

  it('backs off and tries again under failurePolicy reinstall, like a failed Job', async () => {
    const cluster = new FakeCluster();
    const chart = ref(uniqueName('quota-reinstall'));
    let refusals = 2;
    cluster.throwIn.prepareInstall = () => {
      if (refusals === 0) return undefined;
      refusals -= 1;
      return permanentFailure('QuotaExceeded', quota(chart.name));
    };
    await withWorker(temporal.env, cluster, async (taskQueue) => {
      const tuning = { backoffBaseSeconds: 1, backoffMaxSeconds: 1 };
      const handle = await startChart(temporal.env, taskQueue, chart, desired('d1'), tuning);
      await waitForStatus(handle, 'phase Installed', (s) => s.phase === 'Installed');
      expect(cluster.events.map((e) => e.reason)).toEqual(['HelmChartInstallFailed', 'HelmChartInstallFailed']);
      expect(timerSeconds(await historyOf(handle))).toEqual([1, 1]);
      // No Job was created by a refused attempt, so none is deleted before the backoff.
      expect(cluster.deletedJobs).toEqual([]);
    });
  });

  it('leaves a transient failure to Temporal’s retry, without a Failed condition', async () => {
    const cluster = new FakeCluster();
    let failures = 2;
    cluster.throwIn.prepareInstall = () => {
      if (failures === 0) return undefined;
      failures -= 1;
      return ApplicationFailure.retryable('connect ECONNREFUSED 127.0.0.1:6443');
    };
    await withWorker(temporal.env, cluster, async (taskQueue) => {
      const handle = await startChart(temporal.env, taskQueue, ref(uniqueName('transient')), desired('d1'));
      await waitForStatus(handle, 'phase Installed', (s) => s.phase === 'Installed');
      expect(cluster.calls.filter((c) => c === 'prepareInstall')).toHaveLength(3);
      expect(cluster.events).toEqual([]);
    });
  });
});

describe('an uninstall step the apiserver refuses for good', () => {
  it('skips to the clean-up and the finalizer, naming what was left (a namespace being deleted)', async () => {
    const cluster = new FakeCluster();
    const chart = ref(uniqueName('terminating'));
    const forbidden = `serviceaccounts "helm-${chart.name}" is forbidden: unable to create new content in namespace kube-system because it is being terminated`;
    await withWorker(temporal.env, cluster, async (taskQueue) => {
      const handle = await startChart(temporal.env, taskQueue, chart, desired('d1'));
      await waitForStatus(handle, 'phase Installed', (s) => s.phase === 'Installed');
      cluster.throwIn.startDeleteJob = () => permanentFailure('NamespaceTerminating', forbidden);
      const before = cluster.calls.length;
      await handle.signal(deleteSignal, { uid: 'uid-1' });
      expect(await handle.result()).toBe('deleted');
      expect(cluster.callsSince(before)).toEqual([
        'deleteJob',
        'startDeleteJob',
        'removeInstallObjects',
        'recordEvent',
        'releaseFinalizer',
      ]);
      expect(cluster.events).toEqual([
        {
          type: 'Warning',
          reason: 'HelmChartUninstallFailed',
          message: `the finalizer is released anyway; left behind: release ${chart.name}, not uninstalled (NamespaceTerminating: ${forbidden})`,
        },
      ]);
    });
  });

  it('bounds a step that keeps failing transiently, then goes on to release the finalizer', async () => {
    const cluster = new FakeCluster();
    const chart = ref(uniqueName('unreachable'));
    cluster.throwIn.removeInstallObjects = () => ApplicationFailure.retryable('etcdserver: request timed out');
    await withWorker(temporal.env, cluster, async (taskQueue) => {
      const handle = await startChart(temporal.env, taskQueue, chart, desired('d1'), { uninstallStepSeconds: 3 });
      await waitForStatus(handle, 'phase Installed', (s) => s.phase === 'Installed');
      await handle.signal(deleteSignal, { uid: 'uid-1' });
      expect(await handle.result()).toBe('deleted');
      expect(cluster.finalizerReleased).toBe(true);
      expect(cluster.calls.filter((c) => c === 'removeInstallObjects').length).toBeGreaterThan(1);
      expect(cluster.events).toEqual([
        expect.objectContaining({
          reason: 'HelmChartUninstallFailed',
          message: expect.stringContaining(`ConfigMap of ${chart.name} (StepTimedOut`) as unknown,
        }),
      ]);
    });
  });
});

describe('deleting an unmanaged chart (helm.k3sm.io/unmanaged: "true")', () => {
  it('releases the finalizer without a helm uninstall: no helm-delete Job', async () => {
    const cluster = new FakeCluster();
    await withWorker(temporal.env, cluster, async (taskQueue) => {
      const chart = ref(uniqueName('unmanaged'));
      const handle = await startChart(temporal.env, taskQueue, chart, desired('d1'));
      await waitForStatus(handle, 'phase Installed', (s) => s.phase === 'Installed');
      const before = cluster.calls.length;
      await handle.signal(deleteSignal, { uid: 'uid-1', keepRelease: true });
      expect(await handle.result()).toBe('deleted');
      expect(cluster.callsSince(before)).toEqual([
        'deleteJob',
        'recordEvent',
        'removeInstallObjects',
        'releaseFinalizer',
      ]);
      expect(cluster.events).toEqual([
        expect.objectContaining({ type: 'Normal', reason: 'HelmChartUninstallSkipped' }),
      ]);
    });
  });
});

describe('a desired state older than the one held', () => {
  it('is ignored: a lower generation, or the same generation under a lower leadership term', async () => {
    const cluster = new FakeCluster();
    await withWorker(temporal.env, cluster, async (taskQueue) => {
      const chart = ref(uniqueName('stale'));
      const handle = await startChart(temporal.env, taskQueue, chart, { ...desired('d2', { generation: 2 }), term: 5 });
      await waitForStatus(handle, 'phase Installed', (s) => s.phase === 'Installed');
      // A stale leader resyncs what it saw before: generation 1, then generation 2 with an older digest.
      await handle.signal(desiredStateSignal, { ...desired('d1', { generation: 1 }), term: 5 });
      await handle.signal(desiredStateSignal, { ...desired('d2-old', { generation: 2 }), term: 4 });
      // The current leader's next state is taken (a marker that the two before were handled, in order).
      await handle.signal(desiredStateSignal, { ...desired('d3', { generation: 3 }), term: 5 });
      await waitForStatus(handle, 'd3 installed', (s) => s.installedDigest === 'd3');
      await untilIdle(handle);
      expect(cluster.installStarts.map((s) => s.attempt)).toEqual([1, 2]);
      expect((await handle.query(statusQuery)).desiredDigest).toBe('d3');
    });
  });
});
