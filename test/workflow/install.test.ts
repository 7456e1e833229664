import { Worker } from '@temporalio/worker';
import { waitFor } from '../../src/lib/wait.js';
import {
  chartWorkflowId,
  deleteSignal,
  desiredStateSignal,
  statusQuery,
  type ChartRef,
  type DesiredState,
} from '../../workflows/contract.js';
import type { helmChartWorkflow } from '../../workflows/chart.js';
import { FakeCluster } from './support/fake-activities.js';
import { workflowBundle } from './support/env.js';
import { useTemporal } from './support/use-temporal.js';

const temporal = useTemporal();

let counter = 0;
async function withWorker<T>(cluster: FakeCluster, fn: (taskQueue: string) => Promise<T>): Promise<T> {
  counter += 1;
  const taskQueue = `install-test-${counter}`;
  const worker = await Worker.create({
    connection: temporal.env.nativeConnection,
    taskQueue,
    workflowBundle: await workflowBundle(),
    activities: cluster.activities(),
  });
  return worker.runUntil(fn(taskQueue));
}

const ref = (name: string): ChartRef => ({ group: 'helm.k3sm.io', namespace: 'kube-system', name });
const desired = (digest: string, generation = 1): DesiredState => ({
  uid: 'uid-1',
  generation,
  digest,
  failurePolicy: 'reinstall',
});

describe('the chart workflow', () => {
  it('installs on the first desired state, then uninstalls and releases the finalizer on delete', async () => {
    const cluster = new FakeCluster();
    await withWorker(cluster, async (taskQueue) => {
      const r = ref(`podinfo-${Date.now()}`);
      const handle = await temporal.client.workflow.signalWithStart<typeof helmChartWorkflow, [DesiredState]>(
        'helmChartWorkflow',
        {
          taskQueue,
          workflowId: chartWorkflowId(r),
          args: [{ ref: r }],
          signal: desiredStateSignal,
          signalArgs: [desired('d1')],
        },
      );
      await waitFor('Installed', async () => (await handle.query(statusQuery)).phase === 'Installed');
      await handle.signal(deleteSignal, { uid: 'uid-1' });
      expect(await handle.result()).toBe('deleted');
      expect(cluster.finalizerReleased).toBe(true);
      expect(cluster.calls).toContain('startDeleteJob');
    });
  });
});
