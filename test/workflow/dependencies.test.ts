import { desiredStateSignal, type DesiredState } from '../../workflows/contract.js';
import { FakeCluster } from './support/fake-activities.js';
import {
  desired,
  historyOf,
  ref,
  scheduledActivities,
  startChart,
  uniqueName,
  until,
  untilIdle,
  untilSignalHandled,
  waitForStatus,
  withWorker,
} from './support/harness.js';
import { useTemporal } from './support/use-temporal.js';

const temporal = useTemporal();

const waiting = { reason: 'DependenciesNotReady', message: 'waiting for db/postgres to be installed' } as const;
const cycle = { reason: 'DependencyCycle', message: 'helm.k3sm.io/depends-on makes a cycle: n/a → n/b → n/a' } as const;
const held = (d: DesiredState, dependencies: DesiredState['dependencies']): DesiredState => ({ ...d, dependencies });

/** What the Temporal UI shows as the workflow's current details (the SDK's built-in metadata query). */
async function currentDetails(handle: { query: (name: string) => Promise<unknown> }): Promise<string | undefined> {
  const metadata = (await handle.query('__temporal_workflow_metadata')) as { currentDetails?: string };
  return metadata.currentDetails;
}

describe('depends-on, held by the controller in the desired state', () => {
  it('starts no install while its dependencies are not installed, says so once, and installs when they are', async () => {
    const cluster = new FakeCluster();
    await withWorker(temporal.env, cluster, async (taskQueue) => {
      const chart = ref(uniqueName('depends'));
      const handle = await startChart(temporal.env, taskQueue, chart, held(desired('d1'), waiting));
      await until('HelmChartWaitingForDependencies recorded', () =>
        cluster.events.some((e) => e.reason === 'HelmChartWaitingForDependencies'),
      );
      await untilIdle(handle);
      expect(cluster.installStarts).toHaveLength(0);
      expect(cluster.statuses.at(-1)).toMatchObject({
        phase: 'Pending',
        conditions: [
          { type: 'DependenciesReady', status: 'False', reason: 'DependenciesNotReady', message: waiting.message },
        ],
      });
      expect(await currentDetails(handle)).toBe(`${chart.namespace}/${chart.name}: ${waiting.message}`);

      // The same hold again (a resync) says nothing new.
      await handle.signal(desiredStateSignal, held(desired('d1'), waiting));
      await untilSignalHandled(handle);
      await untilIdle(handle);
      expect(cluster.events.filter((e) => e.reason === 'HelmChartWaitingForDependencies')).toHaveLength(1);

      await handle.signal(desiredStateSignal, desired('d1'));
      await waitForStatus(handle, 'installed d1', (s) => s.installedDigest === 'd1');
      expect(cluster.installStarts).toHaveLength(1);
      expect(cluster.events.map((e) => e.reason)).toContain('HelmChartDependenciesReady');
      expect(cluster.statuses).toContainEqual(
        expect.objectContaining({
          conditions: [
            expect.objectContaining({ type: 'DependenciesReady', status: 'True', reason: 'DependenciesInstalled' }),
          ],
        }),
      );
      expect(await currentDetails(handle)).toBe('');
    });
  });

  it('refuses a cycle as the chart’s failure with a Warning, and installs once the cycle is broken', async () => {
    const cluster = new FakeCluster();
    await withWorker(temporal.env, cluster, async (taskQueue) => {
      const chart = ref(uniqueName('cycle'));
      const handle = await startChart(temporal.env, taskQueue, chart, held(desired('d1'), cycle));
      const status = await waitForStatus(handle, 'phase Failed', (s) => s.phase === 'Failed');
      expect(status.lastFailure).toEqual({ reason: 'DependencyCycle', digest: 'd1' });
      await until('the Warning', () => cluster.events.some((e) => e.reason === 'HelmChartDependencyCycle'));
      expect(cluster.events.find((e) => e.reason === 'HelmChartDependencyCycle')).toMatchObject({ type: 'Warning' });
      await untilIdle(handle);
      expect(cluster.installStarts).toHaveLength(0);

      await handle.signal(desiredStateSignal, desired('d1'));
      const installed = await waitForStatus(handle, 'installed d1', (s) => s.installedDigest === 'd1');
      expect(installed.lastFailure).toBeUndefined();
      expect(scheduledActivities(await historyOf(handle)).filter((a) => a === 'prepareInstall')).toHaveLength(1);
    });
  });

  it('holds an upgrade while a dependency is not installed; the chart stays Installed', async () => {
    const cluster = new FakeCluster();
    await withWorker(temporal.env, cluster, async (taskQueue) => {
      const chart = ref(uniqueName('mid-install'));
      const handle = await startChart(temporal.env, taskQueue, chart, desired('d1'));
      await waitForStatus(handle, 'installed d1', (s) => s.installedDigest === 'd1');
      await handle.signal(desiredStateSignal, held(desired('d2', { generation: 2 }), waiting));
      await until('the wait said', () => cluster.events.some((e) => e.reason === 'HelmChartWaitingForDependencies'));
      await untilIdle(handle);
      expect(cluster.installStarts).toHaveLength(1);
      expect(cluster.statuses.at(-1)).toMatchObject({ phase: 'Installed' });
    });
  });
});
