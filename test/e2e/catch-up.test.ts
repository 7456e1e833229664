// People first from the controller's start (issue 10): a chart applied while no controller serves it is someone's
// change. The controller's initial list is mostly charts it has served before, and catching up on them is paced;
// the new chart must not wait behind that, in silence.
import type { Settings } from '../../src/app/settings.js';
import { UNINSTALL_FINALIZER, UNMANAGED_ANNOTATION } from '../../src/api/index.js';
import { freePort } from '../../src/lib/free-port.js';
import { get } from '../../src/lib/http.js';
import { waitFor } from '../../src/lib/wait.js';
import { seriesValue } from '../../bench/prometheus-text.js';
import { buildChart } from './support/charts.js';
import { installCrds } from './support/crds.js';
import { helmflowSettings, startController, startWorker, type RunningRole } from './support/helmflow.js';
import { apply, chartInstalled, helmChart, readHelmChart } from './support/helmcharts.js';
import { freshNamespace, kubectl } from './support/kube.js';

// Catching up on this many charts takes the controller about 20 s at its pace of one every 50 ms.
const BACKLOG = 400;
const chart = buildChart({ name: 'catch-up' });
let settings: Settings;
let controller: RunningRole | undefined;
let worker: RunningRole | undefined;

beforeAll(async () => {
  await installCrds('helm.k3sm.io');
  settings = helmflowSettings({ httpPort: await freePort() });
});
afterAll(async () => {
  await Promise.all([controller?.stop(), worker?.stop()]);
});

/** The controller's queued-charts gauge for one urgency, or undefined before it serves /metrics. */
async function queued(urgency: 'change' | 'resync'): Promise<number | undefined> {
  const body = (await get(`http://127.0.0.1:${String(settings.httpPort)}/metrics`)).body;
  return seriesValue(body, `helmflow_controller_queued_charts{urgency="${urgency}"}`);
}

describe("a chart applied before the controller's start", () => {
  it('is served before the catch-up on the charts already there', async () => {
    const ns = await freshNamespace('catch-up');
    // The backlog: charts the controller lists at its start and catches up on. Unmanaged, so catching up costs
    // no install, only the controller's pace.
    const backlog = Array.from({ length: BACKLOG }, (_, i) =>
      helmChart(
        ns,
        `backlog-${String(i).padStart(3, '0')}`,
        { chart: 'none', repo: 'https://charts.example.com' },
        { annotations: { [UNMANAGED_ANNOTATION]: 'true' } },
      ),
    );
    apply({ apiVersion: 'v1', kind: 'List', items: backlog }, 180_000);
    // Named to sort after the backlog, so the initial list reports it last.
    apply(helmChart(ns, 'zz-new', { chartContent: chart.chartContent }));

    controller = startController(settings);
    worker = startWorker({ ...settings, httpPort: 0 });
    await waitFor(
      'zz-new taken in (its finalizer added)',
      async () => (await readHelmChart(ns, 'zz-new'))?.metadata.finalizers?.includes(UNINSTALL_FINALIZER) === true,
      { timeoutMs: 60_000, intervalMs: 100 },
    );
    // Taken in while most of the catch-up still waits: served as a change, not after the backlog.
    const waiting = await waitFor('the controller serving /metrics', () => queued('resync'), {
      timeoutMs: 10_000,
      intervalMs: 100,
    });
    expect(waiting).toBeGreaterThan(BACKLOG / 2);
    await chartInstalled(ns, 'zz-new');
    // And the catch-up ends, with nothing else happening to wake the queue: every key is served at its pace.
    await waitFor('the catch-up to end (no chart waiting to resync)', async () => (await queued('resync')) === 0, {
      timeoutMs: 120_000,
      intervalMs: 500,
    });

    // Unmanaged charts have no finalizer: they go at once. zz-new is uninstalled by this file's helmflow.
    const deleted = kubectl(
      ['delete', 'helmcharts.helm.k3sm.io', '--all', '-n', ns, '--wait=false'],
      undefined,
      180_000,
    );
    expect(deleted.status).toBe(0);
    await waitFor('zz-new uninstalled and gone', async () => (await readHelmChart(ns, 'zz-new')) === undefined, {
      timeoutMs: 120_000,
      intervalMs: 500,
    });
  });
});
