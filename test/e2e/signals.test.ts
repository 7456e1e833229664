import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { waitFor } from '../../src/lib/wait.js';
import { buildChart } from './support/charts.js';
import { installCrds } from './support/crds.js';
import { helmflowSettings } from './support/helmflow.js';
import { spawnHelmflow } from './support/helmflow-process.js';
import { apply, chartInstalled, helmChart } from './support/helmcharts.js';
import { freshNamespace } from './support/kube.js';

// helmflow stops gracefully on SIGTERM and SIGINT only. Other signals keep the meaning node gives them: here
// SIGUSR2 asks node for a heap snapshot (`--heapsnapshot-signal`), which must leave controller and worker running.
describe('helmflow run and a signal it does not stop on', () => {
  it("keeps its worker through SIGUSR2, node's heap-snapshot signal, then stops cleanly on SIGTERM", async () => {
    await installCrds('helm.k3sm.io');
    const dir = mkdtempSync(path.join(tmpdir(), 'helmflow-heap-'));
    const run = spawnHelmflow('run', helmflowSettings(), {}, 'compiled', [
      '--heapsnapshot-signal=SIGUSR2',
      `--diagnostic-dir=${dir}`,
    ]);
    try {
      await run.logged('worker running');
      run.child.kill('SIGUSR2');
      await waitFor('the heap snapshot', () => readdirSync(dir).some((f) => f.endsWith('.heapsnapshot')) || undefined, {
        timeoutMs: 60_000,
      });
      const ns = await freshNamespace('signals');
      apply(helmChart(ns, 'after-snapshot', { chartContent: buildChart({ name: 'after-snapshot' }).chartContent }));
      await chartInstalled(ns, 'after-snapshot');
      await run.stop();
    } finally {
      await run.kill();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
