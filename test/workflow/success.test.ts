import { tsToMs } from '@temporalio/common/lib/time.js';
import { waitFor } from '../../src/lib/wait.js';
import { chartNameKey, chartNamespaceKey, chartWorkflowId, phaseKey } from '../../workflows/contract.js';
import { FakeCluster } from './support/fake-activities.js';
import { useTemporal } from './support/use-temporal.js';
import {
  desired,
  historyOf,
  ref,
  scheduledActivities,
  startChart,
  summaries,
  uniqueName,
  waitForStatus,
  withWorker,
} from './support/harness.js';

const temporal = useTemporal();

describe('a chart that installs', () => {
  it('answers the status query with phase Installed, the installed digest and the Job', async () => {
    const cluster = new FakeCluster();
    await withWorker(temporal.env, cluster, async (taskQueue) => {
      const chart = ref(uniqueName('podinfo'));
      const handle = await startChart(temporal.env, taskQueue, chart, desired('d1'));
      const status = await waitForStatus(handle, 'phase Installed', (s) => s.phase === 'Installed');
      expect(status).toEqual({
        ref: chart,
        uid: 'uid-1',
        phase: 'Installed',
        desiredDigest: 'd1',
        installedDigest: 'd1',
        attempt: 1,
        jobName: `helm-install-${chart.name}`,
        lastFailure: undefined,
      });
      // The install sequence: one validated read that creates identity, inputs and Job and says JobCreated; the
      // wait, which writes the success report when the Job succeeds.
      expect(cluster.calls).toEqual(['prepareInstall', 'awaitJob']);
      expect(cluster.statuses[0]?.conditions).toEqual([
        expect.objectContaining({ type: 'JobCreated', status: 'True' }),
      ]);
      expect(cluster.statuses[1]).toMatchObject({
        phase: 'Installed',
        conditions: [{ type: 'Failed', status: 'False', reason: 'InstallSucceeded' }],
      });
      expect(cluster.events).toEqual([]);
    });
  });

  it('keeps its search attributes current, so the UI can filter charts by namespace, name and phase', async () => {
    const cluster = new FakeCluster();
    await withWorker(temporal.env, cluster, async (taskQueue) => {
      const chart = ref(uniqueName('searchable'));
      const handle = await startChart(temporal.env, taskQueue, chart, desired('d1'));
      await waitForStatus(handle, 'phase Installed', (s) => s.phase === 'Installed');
      const query = `WorkflowId = "${chartWorkflowId(chart)}" AND HelmChartPhase = "Installed"`;
      const listed = await waitFor(
        'the chart listed under HelmChartPhase = "Installed" (visibility is eventually consistent)',
        async () => {
          for await (const execution of temporal.client.workflow.list({ query })) return execution;
          return undefined;
        },
        { timeoutMs: 30_000, intervalMs: 200 },
      );
      expect(listed.workflowId).toBe(chartWorkflowId(chart));
      expect(listed.typedSearchAttributes.get(chartNamespaceKey)).toBe('kube-system');
      expect(listed.typedSearchAttributes.get(chartNameKey)).toBe(chart.name);
      const description = await handle.describe();
      expect(description.typedSearchAttributes.get(phaseKey)).toBe('Installed');

      // A failing chart moves to another phase and leaves the Installed filter.
      cluster.installOutcome = () => ({ outcome: 'failed', reason: 'BackoffLimitExceeded' });
      await handle.signal('desiredState', desired('d2', { generation: 2, failurePolicy: 'abort' }));
      await waitForStatus(handle, 'phase Failed', (s) => s.phase === 'Failed');
      await waitFor(
        'the chart listed under HelmChartPhase = "Failed" and no longer under Installed',
        async () => {
          const failed = [];
          for await (const e of temporal.client.workflow.list({
            query: `WorkflowId = "${chartWorkflowId(chart)}" AND HelmChartPhase = "Failed"`,
          }))
            failed.push(e);
          const installed = [];
          for await (const e of temporal.client.workflow.list({ query })) installed.push(e);
          return failed.length === 1 && installed.length === 0;
        },
        { timeoutMs: 30_000, intervalMs: 200 },
      );
    });
  });

  it('bounds the wait by the Job deadline and heartbeats, and labels each step with a summary', async () => {
    const cluster = new FakeCluster();
    await withWorker(temporal.env, cluster, async (taskQueue) => {
      const chart = ref(uniqueName('bounded'));
      const handle = await startChart(temporal.env, taskQueue, chart, desired('d1'));
      await waitForStatus(handle, 'phase Installed', (s) => s.phase === 'Installed');
      const events = await historyOf(handle);
      expect(scheduledActivities(events)).toEqual(['prepareInstall', 'awaitJob']);
      const wait = events.find((e) => e.activityTaskScheduledEventAttributes?.activityType?.name === 'awaitJob');
      const attrs = wait?.activityTaskScheduledEventAttributes;
      // The fake's Job has activeDeadlineSeconds 600: the wait may last that plus two minutes, no longer.
      expect(tsToMs(attrs?.startToCloseTimeout) / 1000).toBe(720);
      expect(tsToMs(attrs?.heartbeatTimeout) / 1000).toBe(10);
      expect(summaries(events)).toEqual(
        expect.arrayContaining([
          expect.stringContaining(`Validate HelmChart kube-system/${chart.name}, then create its ServiceAccount`),
          expect.stringMatching(new RegExp(`Job helm-install-${chart.name} .*\\(attempt 1\\)`)),
          expect.stringContaining(`Wait for helm-install-${chart.name}: helm upgrade --install ${chart.name}`),
        ]),
      );
      // Every step is labelled in the UI, the status writes included.
      const unlabelled = events.filter(
        (e) =>
          e.activityTaskScheduledEventAttributes !== undefined &&
          e.activityTaskScheduledEventAttributes !== null &&
          e.userMetadata?.summary?.data === undefined,
      );
      expect(unlabelled.map((e) => e.activityTaskScheduledEventAttributes?.activityType?.name)).toEqual([]);
    });
  });
});
