import { temporal as proto } from '@temporalio/proto';
import { chartNameKey, chartNamespaceKey, phaseKey } from '../../workflows/contract.js';
import { FakeCluster } from './support/fake-activities.js';
import { useTemporal } from './support/use-temporal.js';
import {
  desired,
  historyOf,
  ref,
  startChart,
  uniqueName,
  untilIdle,
  waitForStatus,
  withWorker,
  type HistoryEvent,
} from './support/harness.js';

const temporal = useTemporal();
const { EventType } = proto.api.enums.v1;

/** The event types of a history, by name, e.g. EVENT_TYPE_MARKER_RECORDED → MARKER_RECORDED. */
const kinds = (events: HistoryEvent[]) =>
  events.map((e) => (EventType[e.eventType ?? 0] ?? String(e.eventType)).replace(/^EVENT_TYPE_/, ''));

/** Issue 10's budget: the durable cost of one plain install, as the controller starts it. */
const PLAIN_INSTALL_BUDGET = 20;

describe('what one chart costs in workflow history', () => {
  it(`a plain install is at most ${PLAIN_INSTALL_BUDGET} history events`, async () => {
    const cluster = new FakeCluster();
    await withWorker(temporal.env, cluster, async (taskQueue) => {
      const handle = await startChart(temporal.env, taskQueue, ref(uniqueName('lean')), desired('d1'));
      await waitForStatus(handle, 'phase Installed', (s) => s.phase === 'Installed');
      await untilIdle(handle);
      const events = await historyOf(handle);
      const shape = kinds(events);
      // With the shape, so a regression names the event that came back, not just a count.
      expect({ events: shape.length, shape }).toEqual({ events: Math.min(shape.length, PLAIN_INSTALL_BUDGET), shape });
      // The writes on the chart all happened: JobCreated (by prepareInstall) and Installed (by the wait).
      expect(cluster.calls).toEqual(['prepareInstall', 'awaitJob']);
      expect(cluster.statuses.map((s) => s.phase)).toEqual(['Installing', 'Installed']);
      expect((await handle.describe()).typedSearchAttributes.get(phaseKey)).toBe('Installed');
    });
  });

  it('a run started without search attributes (by an older controller) sets them itself, once', async () => {
    const cluster = new FakeCluster();
    await withWorker(temporal.env, cluster, async (taskQueue) => {
      const chart = ref(uniqueName('unlabelled'));
      const handle = await startChart(temporal.env, taskQueue, chart, desired('d1'), undefined, {
        searchAttributes: false,
      });
      await waitForStatus(handle, 'phase Installed', (s) => s.phase === 'Installed');
      await untilIdle(handle);
      const attributes = (await handle.describe()).typedSearchAttributes;
      expect([attributes.get(chartNamespaceKey), attributes.get(chartNameKey), attributes.get(phaseKey)]).toEqual([
        'kube-system',
        chart.name,
        'Installed',
      ]);
      // Namespace, name and Pending at start; then Installing and Installed; and the patch's TemporalChangeVersion.
      const upserts = kinds(await historyOf(handle)).filter((k) => k === 'UPSERT_WORKFLOW_SEARCH_ATTRIBUTES');
      expect(upserts).toHaveLength(4);
    });
  });
});
