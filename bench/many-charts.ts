// Many charts at once: N chartContent HelmCharts applied together, on an embedded stack of the bench's own.
// Prints the time until every chart is Installed (and percentiles per chart), the peak number of install Jobs
// running at once, and the memory of the helmflow process (controller + worker share it here) — the figures
// behind DESIGN.md's "Waiting for a Job at scale" (one shared Job watch per worker; an activity slot per wait).
// --slots S runs the worker with S activity slots (the --activity-slots setting): with fewer slots than charts,
// waits queue for a slot, and the figures show what that costs.
// Run: npx tsx bench/many-charts.ts [--charts N] [--slots S]   (defaults 40 and 500; needs `npm run setup`)
import { rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { CustomObjectsApi } from '@kubernetes/client-node';
import { pino } from 'pino';
import { startStack, stopStack } from '../src/devstack/stack.js';
import { waitFor } from '../src/devstack/wait.js';

process.env.HELMFLOW_TEST_STACK_DIR = path.join(tmpdir(), 'helmflow-bench-many-stack');
process.env.HELMFLOW_TEST_PORT_OFFSET = '2800';
const { buildChart } = await import('../test/e2e/support/charts.js');
const { helmflowSettings, startController, startWorker } = await import('../test/e2e/support/helmflow.js');
const { apply, helmChart } = await import('../test/e2e/support/helmcharts.js');
const { clients, freshNamespace, kubeConfig } = await import('../test/e2e/support/kube.js');
const { installCrds } = await import('../test/e2e/support/crds.js');
const { testLayout } = await import('../test/e2e/support/stack.js');

const numberFlag = (name: string, def: number): number => {
  const at = process.argv.indexOf(name);
  return at === -1 ? def : Number(process.argv[at + 1]);
};
const count = numberFlag('--charts', 40);
const slots = numberFlag('--slots', 500);
const layout = testLayout();
const log = pino({ level: 'warn' });
const chart = buildChart({ name: 'many' });

await stopStack(layout, log);
rmSync(layout.stateDir, { recursive: true, force: true });
await startStack(layout, log);
await installCrds('helm.k3sm.io');
const settings = helmflowSettings({ activitySlots: slots });
const roles = [startController(settings), startWorker(settings)];
try {
  const ns = await freshNamespace('many');
  const { batch } = clients();
  const custom = kubeConfig().makeApiClient(CustomObjectsApi);
  let peakActive = 0;
  const sampleJobs = setInterval(() => {
    void batch.listNamespacedJob({ namespace: ns }).then((jobs) => {
      const active = jobs.items.filter((j) => (j.status?.active ?? 0) > 0).length;
      peakActive = Math.max(peakActive, active);
    });
  }, 500);
  const start = performance.now();
  const done = new Map<string, number>();
  for (let i = 0; i < count; i++) apply(helmChart(ns, `chart-${i}`, { chartContent: chart.chartContent }));
  const applied = Math.round(performance.now() - start);
  let rssPeak = 0;
  await waitFor(
    `${count} charts Installed`,
    async () => {
      rssPeak = Math.max(rssPeak, process.memoryUsage().rss);
      const all = (await custom.listNamespacedCustomObject({
        group: 'helm.k3sm.io',
        version: 'v1',
        namespace: ns,
        plural: 'helmcharts',
      })) as { items: { metadata: { name: string }; status?: { phase?: string } }[] };
      for (const item of all.items) {
        if (item.status?.phase === 'Installed' && !done.has(item.metadata.name)) {
          done.set(item.metadata.name, Math.round(performance.now() - start));
        }
      }
      return done.size === count || undefined;
    },
    { timeoutMs: Math.max(300_000, count * 15_000), intervalMs: 500 },
  );
  clearInterval(sampleJobs);
  const times = [...done.values()].sort((a, b) => a - b);
  const pct = (p: number) => times[Math.min(times.length - 1, Math.floor((p / 100) * times.length))] ?? 0;
  console.log(`charts: ${count} (chartContent, real helm, native node, 2 cores), worker activity slots: ${slots}`);
  console.log(`  kubectl apply of all:        ${applied} ms`);
  console.log(`  all Installed after:         ${times.at(-1) ?? 0} ms`);
  console.log(`  per chart p50 / p90 / max:   ${pct(50)} / ${pct(90)} / ${times.at(-1) ?? 0} ms`);
  console.log(`  install Jobs active at once: ${peakActive} (peak, sampled every 500 ms)`);
  console.log(`  helmflow process RSS:        ${Math.round(rssPeak / 1024 / 1024)} MiB (peak; controller + worker)`);
} finally {
  for (const role of roles) await role.stop();
  await stopStack(layout, log);
  rmSync(layout.stateDir, { recursive: true, force: true });
}
