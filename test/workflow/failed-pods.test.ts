import { workflowMetadataQuery } from '@temporalio/workflow';
import { Deferred, FakeCluster } from './support/fake-activities.js';
import { useTemporal } from './support/use-temporal.js';
import type { JobOutcome } from '../../activities/types.js';
import {
  desired,
  historyOf,
  ref,
  startChart,
  summaries,
  until,
  waitForStatus,
  withWorker,
  uniqueName,
} from './support/harness.js';

const temporal = useTemporal();

const podFailed = (failedPods: number): JobOutcome => ({ outcome: 'podFailed', failedPods, exitCode: 1 });

describe('failed pods of the install Job, reported as they happen', () => {
  it('waits again after each failed pod, saying the count in the UI, then ends like any install', async () => {
    const cluster = new FakeCluster();
    const third = new Deferred<JobOutcome>();
    cluster.installOutcome = (n) => (n === 1 ? podFailed(1) : n === 2 ? podFailed(2) : third.promise);
    await withWorker(temporal.env, cluster, async (taskQueue) => {
      const chart = ref(uniqueName('failed-pods'));
      const job = `helm-install-${chart.name}`;
      const handle = await startChart(temporal.env, taskQueue, chart, desired('d1'));
      await until('the third wait', () => cluster.waits.length === 3);
      // Each wait is told what was reported already, so no pod is reported twice and none is missed.
      expect(cluster.waits.map((w) => w.failedPodsReported)).toEqual([0, 1, 2]);
      const metadata = await handle.query(workflowMetadataQuery);
      expect(metadata.currentDetails).toBe(`${job}: 2 failed pods, last exit 1`);
      third.resolve({ outcome: 'succeeded' });
      const status = await waitForStatus(handle, 'Installed', (s) => s.phase === 'Installed');
      // One install attempt: a failed pod is the Job retrying, not a new attempt of the workflow.
      expect(status.attempt).toBe(1);
      expect(cluster.installStarts).toHaveLength(1);
      expect((await handle.query(workflowMetadataQuery)).currentDetails).toBe('');
      // Summaries are JSON payloads; only counts and an exit code are in them, never helm's output.
      const waits = summaries(await historyOf(handle))
        .map((s) => JSON.parse(s) as string)
        .filter((s) => s.startsWith(`Wait for ${job}`));
      expect(waits).toEqual([
        `Wait for ${job}: helm upgrade --install ${chart.name}`,
        `Wait for ${job}: helm upgrade --install ${chart.name} (${job}: 1 failed pod, last exit 1)`,
        `Wait for ${job}: helm upgrade --install ${chart.name} (${job}: 2 failed pods, last exit 1)`,
      ]);
    });
  });
});
