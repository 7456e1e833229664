import { WaitAborted, waitFor } from '../../../../src/lib/wait.js';
import { startChartRepo, type ChartRepo } from '../chart-repo.js';
import { buildChart } from '../charts.js';
import { installCrds } from '../crds.js';
import { helmflowSettings } from '../helmflow.js';
import { apply, helmChart, readHelmChart } from '../helmcharts.js';
import { freshNamespace, kubectl } from '../kube.js';
import { startOciRegistry, type OciRegistry } from '../oci-registry.js';
import type { FuzzSources } from './fields.js';
import { isInstalled } from './outcomes.js';
import { startFuzzHelmflow, type FuzzHelmflow } from './processes.js';

export interface FuzzEnvironment {
  sources: FuzzSources;
  helmflow: FuzzHelmflow;
  close(): Promise<void>;
}

/**
 * What the fuzz run needs on the test stack: helmflow's CRDs, the test chart `fuzz` as chartContent, in a
 * loopback HTTPS repository and in a loopback OCI registry (nothing downloaded), and helmflow's controller and
 * worker as processes of their own. Returns once one plain chart has installed and been deleted, so the first
 * batch's timings do not include the worker's start.
 */
export async function startFuzzEnvironment(): Promise<FuzzEnvironment> {
  await installCrds('helm.k3sm.io');
  const chart = buildChart({ name: 'fuzz', values: { greeting: 'from the chart' } });
  let repo: ChartRepo | undefined;
  let registry: OciRegistry | undefined;
  let helmflow: FuzzHelmflow | undefined;
  const close = async () => {
    await helmflow?.stop();
    await repo?.close();
    await registry?.close();
  };
  try {
    repo = await startChartRepo([chart]);
    registry = await startOciRegistry([chart]);
    helmflow = startFuzzHelmflow(helmflowSettings());
    const ns = await freshNamespace('fuzz-warmup');
    apply(helmChart(ns, 'warmup', { chartContent: chart.chartContent }));
    const running = helmflow;
    // A helmflow process that cannot start (a missing build, a bad flag) is said at once, not as a silent chart.
    await waitFor(
      'the warm-up chart to install',
      async () => {
        const crashes = await running.crashes();
        if (crashes.length > 0) throw new WaitAborted(`helmflow crashed during the warm-up: ${crashes.join('; ')}`);
        const chart = await readHelmChart(ns, 'warmup');
        return chart !== undefined && isInstalled(chart);
      },
      { timeoutMs: 180_000, intervalMs: 500 },
    );
    kubectl(['delete', 'helmcharts.helm.k3sm.io', 'warmup', '-n', ns, '--wait=false']);
    await waitFor('the warm-up chart to be gone', async () => (await readHelmChart(ns, 'warmup')) === undefined, {
      timeoutMs: 120_000,
    });
    const sources = { chartContent: chart.chartContent, repoUrl: repo.url, ociBase: registry.base };
    return { sources, helmflow, close };
  } catch (err) {
    await close();
    throw err;
  }
}
