// Many charts at once: N chartContent HelmCharts applied together, on an embedded stack of the bench's own.
// helmflow runs as production runs it, one `helmflow run` process (controller + worker). Prints its start time
// (process start → /readyz 200) and its idle memory, the time until every chart is Installed (and percentiles per
// chart), the peak number of install Jobs running at once, and the process's peak memory — the figures behind
// DESIGN.md's "Waiting for a Job at scale" (one shared Job watch per worker; an activity slot per wait).
// --slots S runs the worker with S activity slots (the --activity-slots setting): with fewer slots than charts,
// waits queue for a slot, and the figures show what that costs. --runtime tsx runs the TypeScript sources through
// tsx (as `npm run helmflow` does) instead of the compiled CLI (`npm run build`).
// Run: npx tsx bench/many-charts.ts [--charts N] [--slots S] [--runtime compiled|tsx]
//   (defaults 40, 500, compiled; needs `npm run setup`; HELMFLOW_TEST_STACK_DIR/PORT_OFFSET move its stack)
import { rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { CustomObjectsApi } from '@kubernetes/client-node';
import { pino } from 'pino';
import { freePort } from '../src/devstack/free-port.js';
import { get } from '../src/devstack/http.js';
import { startStack, stopStack } from '../src/devstack/stack.js';
import { waitFor } from '../src/devstack/wait.js';
import { mib, rssBytes } from './proc.js';

process.env.HELMFLOW_TEST_STACK_DIR ??= path.join(tmpdir(), 'helmflow-bench-many-stack');
process.env.HELMFLOW_TEST_PORT_OFFSET ??= '2800';
const { buildChart } = await import('../test/e2e/support/charts.js');
const { helmflowSettings } = await import('../test/e2e/support/helmflow.js');
const { spawnHelmflow } = await import('../test/e2e/support/helmflow-process.js');
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
const runtimeAt = process.argv.indexOf('--runtime');
const runtime = runtimeAt === -1 ? 'compiled' : process.argv[runtimeAt + 1];
if (runtime !== 'compiled' && runtime !== 'tsx') throw new Error('--runtime is compiled or tsx');
const rssMiB = (pid: number): number => mib(rssBytes(pid));
const layout = testLayout();
const log = pino({ level: 'warn' });
const chart = buildChart({ name: 'many' });

await stopStack(layout, log);
rmSync(layout.stateDir, { recursive: true, force: true });
await startStack(layout, log);
await installCrds('helm.k3sm.io');
const settings = helmflowSettings({ activitySlots: slots, httpPort: await freePort() });
const started = performance.now();
const helmflow = spawnHelmflow('run', settings, {}, runtime);
const pid = helmflow.child.pid ?? -1;
try {
  await waitFor(
    '/readyz',
    async () => (await get(`http://127.0.0.1:${String(settings.httpPort)}/readyz`)).status === 200,
    {
      timeoutMs: 120_000,
      intervalMs: 50,
    },
  );
  const ready = Math.round(performance.now() - started);
  // Idle: the highest of 20 samples over 10 s after ready, nothing applied yet.
  let rssIdle = 0;
  for (let i = 0; i < 20; i++) {
    rssIdle = Math.max(rssIdle, rssMiB(pid));
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
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
      rssPeak = Math.max(rssPeak, rssMiB(pid));
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
  console.log(
    `helmflow run (${runtime}): ready ${String(ready)} ms after process start; RSS idle ${String(rssIdle)} MiB`,
  );
  console.log(`charts: ${count} (chartContent, real helm, native node, 2 cores), worker activity slots: ${slots}`);
  console.log(`  kubectl apply of all:        ${applied} ms`);
  console.log(`  all Installed after:         ${times.at(-1) ?? 0} ms`);
  console.log(`  per chart p50 / p90 / max:   ${pct(50)} / ${pct(90)} / ${times.at(-1) ?? 0} ms`);
  console.log(`  install Jobs active at once: ${peakActive} (peak, sampled every 500 ms)`);
  console.log(`  helmflow process RSS:        ${String(rssPeak)} MiB (peak; controller + worker)`);
} finally {
  await helmflow.stop();
  await stopStack(layout, log);
  rmSync(layout.stateDir, { recursive: true, force: true });
}
