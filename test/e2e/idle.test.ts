// Idle costs nothing (issue 10): a resync that finds nothing changed sends no signal, writes no workflow history
// and no Kubernetes object; what it forgot (a restarted controller, a workflow Temporal no longer runs) it
// still recovers.
import { Client, Connection } from '@temporalio/client';
import type { Settings } from '../../src/app/settings.js';
import { get } from '../../src/lib/http.js';
import { freePort } from '../../src/lib/free-port.js';
import { waitFor } from '../../src/lib/wait.js';
import { chartWorkflowId, statusQuery } from '../../workflows/contract.js';
import { buildChart } from './support/charts.js';
import { installCrds } from './support/crds.js';
import { helmflowSettings, startController, startWorker, type RunningRole } from './support/helmflow.js';
import { apply, chartInstalled, helmChart, readHelmChart } from './support/helmcharts.js';
import { freshNamespace } from './support/kube.js';

const chart = buildChart({ name: 'idle', values: { greeting: 'first' } });
let settings: Settings;
let controller: RunningRole | undefined;
let worker: RunningRole | undefined;
let connection: Connection | undefined;
let client: Client;

beforeAll(async () => {
  await installCrds('helm.k3sm.io');
  // A resync every second: several sweeps pass within the test.
  settings = helmflowSettings({ resyncSeconds: 1, httpPort: await freePort() });
  controller = startController(settings);
  worker = startWorker({ ...settings, httpPort: 0 });
  connection = await Connection.connect({ address: settings.temporalAddress });
  client = new Client({ connection, namespace: settings.temporalNamespace });
});
afterAll(async () => {
  await Promise.all([controller?.stop(), worker?.stop()]);
  await connection?.close();
});

/** A counter from the controller's /metrics (0 when absent). */
async function counter(name: string, labels = ''): Promise<number> {
  const body = (await get(`http://127.0.0.1:${settings.httpPort}/metrics`)).body;
  const escaped = `${name}${labels}`.replace(/[{}"]/g, (c) => `\\${c}`);
  const match = new RegExp(`^${escaped} (\\d+)`, 'm').exec(body);
  return match === null ? 0 : Number(match[1]);
}

/** Waits for `n` more resync sweeps than `since`. */
async function sweepsPast(since: number, n: number): Promise<number> {
  return waitFor(
    `${n} resync sweeps after sweep ${since}`,
    async () => {
      const sweeps = await counter('helmflow_resync_sweeps_total');
      return sweeps >= since + n ? sweeps : undefined;
    },
    { timeoutMs: 60_000, intervalMs: 200 },
  );
}

const handleOf = (namespace: string, name: string) =>
  client.workflow.getHandle(chartWorkflowId({ group: settings.group, namespace, name }));

async function historyLength(namespace: string, name: string): Promise<number> {
  return (await handleOf(namespace, name).fetchHistory()).events?.length ?? 0;
}

describe('an idle chart (issue 10)', () => {
  let ns: string;

  it('costs no signal, no history event and no Kubernetes write over several resyncs', async () => {
    ns = await freshNamespace('idle');
    apply(helmChart(ns, 'idle', { chartContent: chart.chartContent }));
    await chartInstalled(ns, 'idle');
    // Settled: a sweep passed without the chart's history growing, so nothing of the install is still in flight.
    // Measured on this chart only: the e2e stack is shared, and charts other test files left may be signalled.
    const events = await waitFor(
      'a sweep that left the chart history unchanged',
      async () => {
        const before = await historyLength(ns, 'idle');
        await sweepsPast(await counter('helmflow_resync_sweeps_total'), 1);
        return (await historyLength(ns, 'idle')) === before ? before : undefined;
      },
      { timeoutMs: 60_000, intervalMs: 0 },
    );
    const resourceVersion = (await readHelmChart(ns, 'idle'))?.metadata.resourceVersion;

    await sweepsPast(await counter('helmflow_resync_sweeps_total'), 5);

    // Any signal to the chart's workflow is a history event: an unchanged history means none was sent.
    expect(await historyLength(ns, 'idle')).toBe(events);
    expect((await readHelmChart(ns, 'idle'))?.metadata.resourceVersion).toBe(resourceVersion);
  });

  it('converges a chart changed while the controller was down, once it restarts (its memory empty)', async () => {
    await controller?.stop();
    apply(helmChart(ns, 'idle', { chartContent: chart.chartContent, valuesContent: 'greeting: second\n' }));
    controller = startController(settings);
    const installed = await chartInstalled(ns, 'idle');
    expect(installed.metadata.generation).toBe(2);
    expect(await handleOf(ns, 'idle').query(statusQuery)).toMatchObject({ phase: 'Installed', attempt: 2 });
  });

  it('signals again a chart whose workflow Temporal no longer runs (terminated, or lost with its data)', async () => {
    const handle = handleOf(ns, 'idle');
    const lost = (await handle.describe()).runId;
    await handle.terminate('as if Temporal had lost it');
    // The next sweep finds no running workflow for the chart and signals it: a fresh workflow installs again.
    const status = await waitFor(
      'a new workflow for the chart, installed',
      async () => {
        const d = await handle.describe();
        if (d.runId === lost || d.status.name !== 'RUNNING') return undefined;
        const s = await handle.query(statusQuery);
        return s.phase === 'Installed' ? s : undefined;
      },
      { timeoutMs: 120_000, intervalMs: 500 },
    );
    expect(status).toMatchObject({ installedDigest: status.desiredDigest, attempt: 1 });
  });
});
