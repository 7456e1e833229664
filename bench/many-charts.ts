// Many charts at once: N chartContent HelmCharts applied together, on an embedded stack of the bench's own.
// helmflow runs as production runs it, one `helmflow run` process (controller + worker). Prints its start time
// (process start → /readyz 200) and its idle memory, the time until every chart is Installed (and percentiles per
// chart, and each chart's own wait from its creation to its Job created and to Installed, read from its conditions,
// with the steps of the slowest chart's workflow: when each was scheduled, started, and ended, and which attempt),
// the peak number of install Jobs running at once, the process's peak memory and its memory once every
// chart is installed (each split: main-thread heap, outside it, the rest) — the figures behind
// the design of waiting for Jobs at scale (one shared Job watch per worker; an activity slot per wait).
// --slots S runs the worker with S activity slots (the --activity-slots setting): with fewer slots than charts,
// waits queue for a slot, and the figures show what that costs. --workflow-cache W keeps W chart workflows in the
// worker's memory (the --workflow-cache setting): fewer cost replays, more cost memory. --runtime tsx runs the
// TypeScript sources through tsx (as `npm run helmflow` does) instead of the compiled CLI (`npm run build`).
// --node-flags "F" runs helmflow's node with flags F (V8's heap sizing, say), to weigh memory against CPU.
// helmflow runs with the glibc malloc arena cap the image sets (bench/image-env.ts); --malloc-arena-max A runs it
// with A instead (0: glibc's own, 8 per core).
// --idle-seconds T then keeps the process idle T seconds more, printing where its memory is every 20 s: V8 gives
// back heap it grew during the installs only after some idle time, so the figure right after them is not the
// steady one.
// Run: npx tsx bench/many-charts.ts [--charts N] [--slots S] [--workflow-cache W] [--runtime compiled|tsx]
//   [--node-flags "F"] [--malloc-arena-max A] [--idle-seconds T]
//   (defaults 40, the settings' defaults, compiled; needs `npm run setup`; HELMFLOW_TEST_STACK_DIR/PORT_OFFSET
//   move its stack)
import { rmSync } from 'node:fs';
import { setTimeout as delay } from 'node:timers/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pino } from 'pino';
import { freePort } from '../src/lib/free-port.js';
import { Option } from 'commander';
import { benchCommand, wholeNumber } from './flags.js';
import { describeMalloc, mallocArenaMaxOption, mallocEnv } from './image-env.js';
import type { Runtime } from './helmflow-run.js';
import { cpuSeconds } from './proc.js';
import { Client, Connection } from '@temporalio/client';
import { chartWorkflowRuns } from '../src/cli/workflow-runs.js';
import { stepTimeline } from './history.js';
import { startStack, stopStack } from '../src/devstack/stack.js';

process.env.HELMFLOW_TEST_STACK_DIR ??= path.join(tmpdir(), 'helmflow-bench-many-stack');
process.env.HELMFLOW_TEST_PORT_OFFSET ??= '2800';
const { helmflowSettings, productionLeaseTimings } = await import('../test/e2e/support/helmflow.js');
const { settingsOf } = await import('../src/app/settings.js');
const { installCrds } = await import('../test/e2e/support/crds.js');
const { testLayout } = await import('../test/e2e/support/stack.js');
const { describeMemory, idleRssMiB, installMany, memoryOf, percentile, runtimes, startRun } =
  await import('./helmflow-run.js');

const defaults = settingsOf();
const flags = benchCommand('many-charts', 'N chartContent HelmCharts applied at once to one `helmflow run`')
  .option('--charts <n>', 'charts applied at once', wholeNumber(1), 40)
  .option('--slots <n>', "the worker's activity slots", wholeNumber(1), defaults.activitySlots)
  .option('--workflow-cache <n>', 'chart workflows the worker keeps in memory', wholeNumber(0), defaults.workflowCache)
  .addOption(
    new Option('--runtime <runtime>', 'compiled CLI or TypeScript sources').choices(runtimes).default('compiled'),
  )
  .option('--node-flags <flags>', "flags for helmflow's node, space-separated (V8's heap sizing, say)", '')
  .addOption(mallocArenaMaxOption())
  .option('--idle-seconds <n>', 'seconds to keep sampling memory after the installs', wholeNumber(0), 0)
  .parse()
  .opts<{
    charts: number;
    slots: number;
    workflowCache: number;
    runtime: Runtime;
    nodeFlags: string;
    mallocArenaMax: number;
    idleSeconds: number;
  }>();
const { charts: count, slots, workflowCache, runtime, mallocArenaMax, idleSeconds } = flags;
const nodeFlags = flags.nodeFlags.split(' ').filter(Boolean);
const layout = testLayout();
const log = pino({ level: 'warn' });

await stopStack(layout, log);
rmSync(layout.stateDir, { recursive: true, force: true });
await startStack(layout, log);
await installCrds('helm.k3sm.io');
const settings = helmflowSettings({
  ...productionLeaseTimings(),
  activitySlots: slots,
  workflowCache,
  httpPort: await freePort(),
});
const run = await startRun(settings, runtime, 120_000, {}, nodeFlags, mallocEnv(mallocArenaMax));
try {
  const rssIdle = await idleRssMiB(run.pid);
  const metricsUrl = `http://127.0.0.1:${String(settings.httpPort)}/metrics`;
  const cpuBefore = cpuSeconds(run.pid);
  const many = await installMany(count, run.pid, metricsUrl);
  const cpuInstalling = cpuSeconds(run.pid) - cpuBefore;
  // With every chart installed and nothing changing: what the process keeps (its workflow cache, watch caches).
  const rssInstalled = await idleRssMiB(run.pid);
  const memoryInstalled = await memoryOf(metricsUrl);
  const times = many.installedMs;
  console.log(
    `helmflow run (${runtime}${nodeFlags.length > 0 ? `, node ${nodeFlags.join(' ')}` : ''}, ${describeMalloc(mallocArenaMax)}): ready ` +
      `${String(run.readyMs)} ms after process start; RSS idle ${String(rssIdle)} MiB`,
  );
  console.log(
    `charts: ${count} (chartContent, real helm, native node, 2 cores), worker activity slots: ${slots}, workflow cache: ${workflowCache}`,
  );
  console.log(`  kubectl apply of all:        ${many.appliedMs} ms`);
  console.log(`  all Installed after:         ${times.at(-1) ?? 0} ms`);
  console.log(
    `  per chart p50 / p90 / max:   ${percentile(times, 50)} / ${percentile(times, 90)} / ${times.at(-1) ?? 0} ms`,
  );
  const { jobCreated, installed } = many.waits;
  console.log(
    `  per chart, its creation to its Job created, p50 / p90 / max: ${percentile(jobCreated, 50)} / ${percentile(jobCreated, 90)} / ${jobCreated.at(-1) ?? 0} s`,
  );
  console.log(
    `  per chart, its creation to Installed, p50 / p90 / max:       ${percentile(installed, 50)} / ${percentile(installed, 90)} / ${installed.at(-1) ?? 0} s`,
  );
  console.log(`  of the tenth created first, the longest creation to Installed: ${many.waits.firstTenthLongest} s`);
  const { slowest } = many.waits;
  if (slowest !== undefined) {
    console.log(`  the slowest, ${slowest.name} (${slowest.installed} s): its workflow's steps, s after its creation:`);
    for (const line of await stepsOf(many.namespace, slowest.name, slowest.createdMs)) console.log(`    ${line}`);
  }
  console.log(`  install Jobs active at once: ${many.peakActiveJobs} (peak)`);
  console.log(`  helmflow process CPU:        ${cpuInstalling.toFixed(1)} s (from apply to all Installed)`);
  console.log(`  helmflow process RSS:        ${String(many.peakRssMiB)} MiB (peak; controller + worker)`);
  if (many.memoryAtPeak !== undefined) {
    console.log(`  at the most resident /metrics sample, ${describeMemory(many.memoryAtPeak)}`);
  }
  console.log(
    `  helmflow process RSS, every chart installed, idle: ${String(rssInstalled)} MiB (the most of 20 samples over 10 s)`,
  );
  if (memoryInstalled !== undefined) console.log(`  where it is: ${describeMemory(memoryInstalled)}`);
  console.log(`  samples every ${String(many.sampleMs)} ms; failed samples left out: ${String(many.failedSamples)}`);
  let cpuIdle = cpuSeconds(run.pid);
  for (let after = 20; after <= idleSeconds; after += 20) {
    await delay(20_000); // a sampling interval, not a wait for anything
    const split = await memoryOf(metricsUrl);
    const cpu = cpuSeconds(run.pid);
    // The share of a core helmflow used over the interval: what its trim's quiet test (src/app/malloc-trim.ts) sees.
    const share = `${(((cpu - cpuIdle) / 20) * 100).toFixed(1)} % of a core`;
    cpuIdle = cpu;
    console.log(`  idle ${String(after)} s later (${share}): ${split === undefined ? '—' : describeMemory(split)}`);
  }
} finally {
  await run.process.stop();
  await stopStack(layout, log);
  rmSync(layout.stateDir, { recursive: true, force: true });
}

/** Every run of the chart's workflow, step by step (bench/history.ts stepTimeline), oldest run first. */
async function stepsOf(namespace: string, name: string, sinceMs: number): Promise<string[]> {
  const connection = await Connection.connect({ address: settings.temporalAddress });
  try {
    const client = new Client({ connection, namespace: settings.temporalNamespace });
    const runs = await chartWorkflowRuns(client, { group: settings.group, namespace, name });
    return runs.flatMap((run) => [`run ${run.runId}:`, ...stepTimeline(run.events, sinceMs)]);
  } finally {
    await connection.close();
  }
}
