// What pre-flight (the install Job's `helm template --dry-run=server` init container) adds to an install, as an A/B
// in one run, on an embedded stack of the bench's own with one controller and one worker. 2×N chartContent
// HelmCharts are installed one at a time, alternating with pre-flight and without it (annotated
// `helm.k3sm.io/preflight: skip`), ABAB…, so drift in the machine's load hits both arms alike. For each it prints
// kubectl apply → Installed and, with pre-flight, how long the container ran from the pod's status (whole seconds:
// the apiserver keeps container times to the second). It then prints each arm's median apply → Installed and their
// difference, and times the pre-flight command itself N times against the same stack (milliseconds).
// Run: npx tsx bench/preflight-cost.ts [--charts N]   (N per arm, default 20; needs `npm run setup` and
//   `npm run build`; HELMFLOW_TEST_STACK_DIR/PORT_OFFSET move its stack)
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pino } from 'pino';
import { PREFLIGHT_SKIP, preflightAnnotationKey } from '../src/build/labels.js';
import { toolPaths } from '../src/config/pins.js';
import { startStack, stopStack } from '../src/devstack/stack.js';
import { waitFor } from '../src/lib/wait.js';
import { median } from './median.js';
import { benchCommand, wholeNumber } from './flags.js';

const { charts: count } = benchCommand(
  'preflight-cost',
  'What pre-flight adds to an install, A/B in one run (needs `npm run build`)',
)
  .option('--charts <n>', 'charts per arm, installed one at a time', wholeNumber(1), 20)
  .parse()
  .opts<{ charts: number }>();

process.env.HELMFLOW_TEST_STACK_DIR ??= path.join(tmpdir(), 'helmflow-bench-preflight-stack');
process.env.HELMFLOW_TEST_PORT_OFFSET ??= '2900';
const { buildChart } = await import('../test/e2e/support/charts.js');
const { helmflowSettings, productionLeaseTimings, startController, startWorker } =
  await import('../test/e2e/support/helmflow.js');
const { apply, helmChart, readHelmChart } = await import('../test/e2e/support/helmcharts.js');
const { clients, freshNamespace } = await import('../test/e2e/support/kube.js');
const { installCrds } = await import('../test/e2e/support/crds.js');
const { testLayout } = await import('../test/e2e/support/stack.js');

const layout = testLayout();
const log = pino({ level: 'warn' });
const chart = buildChart({ name: 'bench', values: { greeting: 'hello' } });
const seconds = (t: Date | string | undefined) => (t === undefined ? NaN : new Date(t).getTime() / 1000);

await stopStack(layout, log);
rmSync(layout.stateDir, { recursive: true, force: true });
await startStack(layout, log);
await installCrds('helm.k3sm.io');
const settings = helmflowSettings(productionLeaseTimings());
const roles = [startController(settings), startWorker(settings)];
try {
  const arms = { with: [] as number[], without: [] as number[] };
  const containerSeconds: number[] = [];
  for (let i = 0; i < 2 * count; i++) {
    const arm = i % 2 === 0 ? 'with' : 'without';
    const ns = await freshNamespace('bench-preflight');
    const name = `chart${String(i)}`;
    const annotations = arm === 'without' ? { [preflightAnnotationKey('helm.k3sm.io')]: PREFLIGHT_SKIP } : {};
    const applied = performance.now();
    apply(helmChart(ns, name, { chartContent: chart.chartContent }, { annotations }));
    await waitFor(
      'Installed',
      async () => {
        const c = await readHelmChart(ns, name);
        return c?.status?.phase === 'Installed' && c.status.observedGeneration === c.metadata.generation;
      },
      { timeoutMs: 120_000, intervalMs: 50 },
    );
    const ms = Math.round(performance.now() - applied);
    arms[arm].push(ms);
    let container = '';
    if (arm === 'with') {
      const pods = await clients().core.listNamespacedPod({
        namespace: ns,
        labelSelector: `job-name=helm-install-${name}`,
      });
      const init = pods.items[0]?.status?.initContainerStatuses?.find((c) => c.name === 'preflight')?.state?.terminated;
      containerSeconds.push(seconds(init?.finishedAt) - seconds(init?.startedAt));
      container = `, pre-flight container ${String(containerSeconds.at(-1))} s`;
    }
    console.log(`  ${name} (${arm} pre-flight): apply → Installed ${String(ms)} ms${container}`);
  }

  // The pre-flight command itself, as the init container runs it (admin credentials here), timed to the millisecond.
  const home = mkdtempSync(path.join(tmpdir(), 'helmflow-bench-helm-'));
  const direct: number[] = [];
  for (let i = 0; i < count; i++) {
    const started = performance.now();
    const run = spawnSync(
      toolPaths().helm,
      [
        'template',
        'bench',
        chart.path,
        '--namespace',
        'bench',
        '--dry-run=server',
        '--output-dir',
        path.join(home, 'out'),
      ],
      {
        env: {
          ...process.env,
          KUBECONFIG: layout.adminKubeconfig,
          HELM_CACHE_HOME: path.join(home, 'cache'),
          HELM_CONFIG_HOME: path.join(home, 'config'),
          HELM_DATA_HOME: path.join(home, 'data'),
        },
      },
    );
    if (run.status !== 0) throw new Error(`helm template failed: ${run.stderr.toString()}`);
    direct.push(Math.round(performance.now() - started));
  }
  rmSync(home, { recursive: true, force: true });

  const withMs = median(arms.with);
  const withoutMs = median(arms.without);
  console.log(`${String(2 * count)} chartContent installs, one at a time, alternating with and without pre-flight:`);
  console.log(`  median apply → Installed with pre-flight (${String(count)}): ${withMs.toFixed(0)} ms`);
  console.log(`  median apply → Installed without pre-flight (${String(count)}): ${withoutMs.toFixed(0)} ms`);
  console.log(`  difference (with − without): ${(withMs - withoutMs).toFixed(0)} ms`);
  console.log(`  median pre-flight container (status times, whole seconds): ${String(median(containerSeconds))} s`);
  console.log(
    `  median helm template --dry-run=server run directly (${String(count)}): ${median(direct).toFixed(0)} ms`,
  );
} finally {
  await Promise.all(roles.map((r) => r.stop()));
  await stopStack(layout, log);
  rmSync(layout.stateDir, { recursive: true, force: true });
}
