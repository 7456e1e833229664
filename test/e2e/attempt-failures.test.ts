import { Client, Connection } from '@temporalio/client';
import { workflowMetadataQuery } from '@temporalio/workflow';
import { waitFor } from '../../src/lib/wait.js';
import { chartWorkflowId } from '../../workflows/contract.js';
import { buildChart } from './support/charts.js';
import { useHelmflow } from './support/helmflow.js';
import { apply, helmChart, readHelmChart } from './support/helmcharts.js';
import { clients, freshNamespace } from './support/kube.js';

const helmflow = useHelmflow();

/**
 * A chart that renders (so pre-flight passes) but never installs: the apiserver refuses the name of its ConfigMap,
 * and helm upgrade exits 1 naming "boom_" on every try.
 */
const broken = buildChart({
  name: 'boom',
  templates: { 'boom.yaml': 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: boom_not_a_dns_name\n' },
});

const EVENT_REASON = 'HelmChartInstallAttemptFailed';

async function attemptEvents(namespace: string, name: string) {
  const list = await clients().core.listNamespacedEvent({ namespace });
  return list.items.filter((e) => e.involvedObject.name === name && e.reason === EVENT_REASON);
}

async function withWorkflow<T>(namespace: string, name: string, fn: (client: Client, id: string) => Promise<T>) {
  const { settings } = helmflow;
  const connection = await Connection.connect({ address: settings.temporalAddress });
  try {
    const client = new Client({ connection, namespace: settings.temporalNamespace });
    return await fn(client, chartWorkflowId({ group: settings.group, namespace, name }));
  } finally {
    await connection.close();
  }
}

/** Every string and payload byte of a history, as text: what a reader of the history could see. */
function textOf(value: unknown): string {
  if (typeof value === 'string') return value;
  if (value instanceof Uint8Array) return Buffer.from(value).toString('utf8');
  if (Array.isArray(value)) return value.map(textOf).join('\n');
  if (typeof value === 'object' && value !== null) return Object.values(value).map(textOf).join('\n');
  return '';
}

describe('a chart whose install Job keeps failing says so at each failed pod, not at the deadline', () => {
  it('shows Installed=False/InstallAttemptFailed and one aggregated Event with helm last lines, Failed stays False', async () => {
    const ns = await freshNamespace('attempts');
    const { batch, core } = clients();
    // Default backOffLimit (1000) and timeout: the Job itself fails only after ten minutes.
    apply(helmChart(ns, 'boom', { chartContent: broken.chartContent }));

    // When the first pod is seen failed, and when the chart and its Events first say so.
    const seen: { pod?: number; condition?: number; event?: number } = {};
    await waitFor(
      'the first failed pod reported on the chart and in an Event',
      async () => {
        const now = Date.now();
        const pods = await core.listNamespacedPod({ namespace: ns, labelSelector: 'job-name=helm-install-boom' });
        if (seen.pod === undefined && pods.items.some((p) => p.status?.phase === 'Failed')) seen.pod = now;
        const chart = await readHelmChart(ns, 'boom');
        const installed = chart?.status?.conditions?.find((c) => c.type === 'Installed');
        if (seen.condition === undefined && installed?.reason === 'InstallAttemptFailed') seen.condition = now;
        if (seen.event === undefined && (await attemptEvents(ns, 'boom')).length > 0) seen.event = now;
        return seen.pod !== undefined && seen.condition !== undefined && seen.event !== undefined;
      },
      { timeoutMs: 120_000, intervalMs: 200 },
    );
    const pod = seen.pod ?? 0;
    const toCondition = ((seen.condition ?? 0) - pod) / 1000;
    const toEvent = ((seen.event ?? 0) - pod) / 1000;
    process.stderr.write(`failed pod → condition ${toCondition.toFixed(1)} s, → Event ${toEvent.toFixed(1)} s\n`);
    // Seen within seconds of the pod failing (the test looks every 200 ms; the pod may be seen late too).
    expect(toCondition).toBeLessThan(5);
    expect(toEvent).toBeLessThan(5);

    const chart = await readHelmChart(ns, 'boom');
    const installed = chart?.status?.conditions?.find((c) => c.type === 'Installed');
    expect(installed).toMatchObject({ status: 'False', reason: 'InstallAttemptFailed' });
    expect(installed?.message).toMatch(/helm-install-boom: \d+ failed pods? of backOffLimit 1000, last exit 1/u);
    expect(installed?.message).toContain('boom');
    // k3s's meaning of Failed: the Job has not failed, so neither has the chart.
    expect(chart?.status?.conditions?.find((c) => c.type === 'Failed')?.status).not.toBe('True');
    expect(chart?.status?.phase).toBe('Installing');
    const [first] = await attemptEvents(ns, 'boom');
    expect(first?.type).toBe('Warning');
    expect(first?.message).toContain('Error: ');
    expect(first?.message).toContain('boom');

    // Three failed pods (the Job backs off 10 s, then 20 s): still one Event, counting each of them.
    const three = await waitFor(
      'three failed pods counted on one Event',
      async () => {
        const job = await batch.readNamespacedJob({ name: 'helm-install-boom', namespace: ns });
        const events = await attemptEvents(ns, 'boom');
        const failed = job.status?.failed ?? 0;
        return failed >= 3 && events[0]?.count === failed ? { failed, events } : undefined;
      },
      { timeoutMs: 180_000, intervalMs: 300 },
    );
    expect(three.events).toHaveLength(1);
    expect(three.events[0]?.message).toContain(`helm-install-boom: ${three.failed} failed pods`);
    const later = await readHelmChart(ns, 'boom');
    expect(later?.status?.conditions?.find((c) => c.type === 'Failed')?.status).not.toBe('True');

    await withWorkflow(ns, 'boom', async (client, id) => {
      const handle = client.workflow.getHandle(id);
      // The Temporal UI says it too, with counts and an exit code only...
      const metadata = await handle.query(workflowMetadataQuery);
      expect(metadata.currentDetails).toMatch(/^helm-install-boom: [3-9] failed pods, last exit 1$/u);
      // ...and helm's output never reaches Temporal history.
      const history = textOf((await handle.fetchHistory()).events ?? []);
      expect(history).toContain('helm-install-boom: 1 failed pod, last exit 1');
      expect(history).not.toContain('boom_not_a_dns_name');
      expect(history).not.toContain('Error: ');
    });
  });
});
