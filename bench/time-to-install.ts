// How long a HelmChart takes to install, on an embedded stack of the bench's own (its own directory and ports):
//  - from a fresh boot (empty state directory, a chartContent HelmChart already in the auto-deploy directory, as
//    k3s's server/manifests would hold it) to that chart Installed — the behaviour contract says about 2 minutes
//    for k3sm (test/e2e/seed-coverage.md, "Timing");
//  - then, warm, from `kubectl apply` to the install Job created and to Installed, over several charts.
// Run: npx tsx bench/time-to-install.ts [--charts N]   (the pinned tools must be built: npm run setup)
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pino } from 'pino';
import { stringify } from 'yaml';
import { startStack, stopStack } from '../src/devstack/stack.js';
import { waitFor } from '../src/lib/wait.js';
import { benchCommand, wholeNumber } from './flags.js';

const { charts } = benchCommand(
  'time-to-install',
  'How long a HelmChart takes to install, from a fresh boot and warm (needs `npm run setup`)',
)
  .option('--charts <n>', 'charts installed warm, one after the other', wholeNumber(1), 5)
  .parse()
  .opts<{ charts: number }>();

// The e2e support code finds its stack through these; the bench points it at a stack of its own.
process.env.HELMFLOW_TEST_STACK_DIR = path.join(tmpdir(), 'helmflow-bench-install-stack');
process.env.HELMFLOW_TEST_PORT_OFFSET = '2700';
const { buildChart } = await import('../test/e2e/support/charts.js');
const { helmflowSettings, productionLeaseTimings, startController, startWorker } =
  await import('../test/e2e/support/helmflow.js');
const { apply, helmChart, readHelmChart } = await import('../test/e2e/support/helmcharts.js');
const { freshNamespace } = await import('../test/e2e/support/kube.js');
const { watchJobs } = await import('../test/e2e/support/observe.js');
const { testLayout } = await import('../test/e2e/support/stack.js');

const layout = testLayout();
const log = pino({ level: 'warn' });
const chart = buildChart({ name: 'bench', values: { greeting: 'hello' } });

const installed = async (namespace: string, name: string) => {
  const c = await readHelmChart(namespace, name);
  return c?.status?.phase === 'Installed' && c.status.observedGeneration === c.metadata.generation;
};
const since = (t: number) => Math.round(performance.now() - t);

await stopStack(layout, log);
rmSync(layout.stateDir, { recursive: true, force: true });
const manifestsDir = mkdtempSync(path.join(tmpdir(), 'helmflow-bench-manifests-'));
chmodSync(manifestsDir, 0o755);
writeFileSync(
  path.join(manifestsDir, 'first.yaml'),
  stringify(helmChart('kube-system', 'first', { chartContent: chart.chartContent })),
  { mode: 0o644 },
);

const settings = helmflowSettings({ ...productionLeaseTimings(), manifestsDir });
const roles: { stop: () => Promise<void> }[] = [];
try {
  // Fresh boot: stack, then helmflow (the controller installs the CRDs, takes its Lease, sweeps the directory).
  const boot = performance.now();
  await startStack(layout, log);
  const stackReady = since(boot);
  let leading = 0;
  roles.push(
    startController(settings, {
      onLeading: (l) => {
        if (l) leading = since(boot);
      },
    }),
    startWorker(settings),
  );
  let jobSeen = 0;
  await waitFor(
    'the first chart to be installed',
    async () => {
      if (jobSeen === 0 && (await readHelmChart('kube-system', 'first'))?.status?.jobName !== undefined)
        jobSeen = since(boot);
      return installed('kube-system', 'first');
    },
    { timeoutMs: 300_000, intervalMs: 100 },
  );
  const firstInstall = since(boot);

  // Warm: kubectl apply → Job created (seen on a watch) → Installed.
  const warm: { job: number; installed: number }[] = [];
  for (let i = 0; i < charts; i++) {
    const ns = await freshNamespace('bench');
    const jobs = await watchJobs(ns);
    const applied = performance.now();
    const appliedWall = Date.now();
    apply(helmChart(ns, `chart${String(i)}`, { chartContent: chart.chartContent }));
    await waitFor('Installed', () => installed(ns, `chart${String(i)}`), { timeoutMs: 120_000, intervalMs: 50 });
    const done = since(applied);
    const added = jobs.added.find((a) => a.name === `helm-install-chart${String(i)}`);
    jobs.stop();
    warm.push({ job: added === undefined ? NaN : added.seenAt - appliedWall, installed: done });
  }

  const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? NaN;
  console.log('fresh boot (empty state dir) to the first install, chart in the auto-deploy directory:');
  console.log(
    `  ${String(stackReady).padStart(6)} ms  embedded stack ready (etcd, apiserver, controller-manager, node, Temporal)`,
  );
  console.log(
    `  ${String(leading).padStart(6)} ms  controller leading (Lease taken, CRDs established, watches and first sweep done)`,
  );
  console.log(`  ${String(jobSeen).padStart(6)} ms  first chart's status names its install Job`);
  console.log(`  ${String(firstInstall).padStart(6)} ms  first chart Installed`);
  console.log(`warm, kubectl apply of a chartContent HelmChart (${String(charts)} charts, one at a time):`);
  for (const [i, w] of warm.entries())
    console.log(`  chart${String(i)}: Job created ${String(w.job)} ms, Installed ${String(w.installed)} ms`);
  console.log(
    `  median: Job created ${String(median(warm.map((w) => w.job)))} ms, Installed ${String(median(warm.map((w) => w.installed)))} ms`,
  );
} finally {
  await Promise.all(roles.map((r) => r.stop()));
  await stopStack(layout, log);
  rmSync(layout.stateDir, { recursive: true, force: true });
  rmSync(manifestsDir, { recursive: true, force: true });
}
