// People first (issue 10): with N charts installed, `helmflow run` is restarted, so its controller re-signals every
// chart (what it delivered is forgotten on restart) and the worker replays them. While that resync flood runs, a
// person applies a new HelmChart and cancels an installed one. Prints apply → the new chart's workflow started,
// apply → its install Job created and → Installed, cancel → the cancelled chart's status says Paused, and how
// long the flood itself took (restart → N + 1 desired-state signals sent, from helmflow's /metrics), on an embedded
// stack of the bench's own, with the production Lease timings. Then how the flood went over time (signals sent by
// each mark, the longest silence) and what the Temporal frontend answered to its signals (bench/flood.ts): a flood
// that stalls and one that trickles give the same average.
// Then idle: with the flood over, two resync sweeps (the bench resyncs every 60 s, five times the default) in
// which nothing changes, over which it prints the history events the N charts' workflows wrote and the writes the
// apiserver served, by resource; and the process's memory with every chart installed.
// Run: npx tsx bench/people-first.ts [--charts N]   (default 200; needs `npm run setup` and `npm run build`;
//   HELMFLOW_TEST_STACK_DIR/PORT_OFFSET move its stack, default $TMPDIR/helmflow-bench-people-stack, +3000)
import { rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import path from 'node:path';
import { Client, Connection, WorkflowNotFoundError } from '@temporalio/client';
import { pino } from 'pino';
import { freePort } from '../src/lib/free-port.js';
import { get } from '../src/lib/http.js';
import { waitFor } from '../src/lib/wait.js';
import { startStack, stopStack } from '../src/devstack/stack.js';
import { chartWorkflowId } from '../workflows/contract.js';
import { benchCommand, wholeNumber } from './flags.js';

const { charts: count } = benchCommand(
  'people-first',
  'A new chart and a cancel while a restarted `helmflow run` resyncs N charts (needs `npm run build`)',
)
  .option('--charts <n>', 'charts installed before the restart', wholeNumber(1), 200)
  .parse()
  .opts<{ charts: number }>();

process.env.HELMFLOW_TEST_STACK_DIR ??= path.join(tmpdir(), 'helmflow-bench-people-stack');
process.env.HELMFLOW_TEST_PORT_OFFSET ??= '3000';
const { helmflowSettings, productionLeaseTimings } = await import('../test/e2e/support/helmflow.js');
const { installCrds } = await import('../test/e2e/support/crds.js');
const { testLayout } = await import('../test/e2e/support/stack.js');
const { buildChart } = await import('../test/e2e/support/charts.js');
const { apply, helmChart, readHelmChart } = await import('../test/e2e/support/helmcharts.js');
const { clients, freshNamespace, kubectl } = await import('./../test/e2e/support/kube.js');
const { describeMemory, idleRssMiB, installMany, memoryOf, startRun } = await import('./helmflow-run.js');
const { countsBetween, describeCounts, longestSilence, operationCounts, sentBy } = await import('./flood.js');
const { requestsBetween, writesByResource } = await import('./apiserver-writes.js');
const { seriesValue } = await import('./prometheus-text.js');
const { mib, peakRssBytes } = await import('./proc.js');

const layout = testLayout();
const log = pino({ level: 'warn' });
const load = () =>
  loadavg()
    .map((x) => x.toFixed(1))
    .join(' ');

/** The Temporal frontend's counts of SignalWithStartWorkflowExecution so far (its metrics count since it started). */
async function signalWithStartCounts() {
  const body = (await get(`http://127.0.0.1:${String(layout.ports.temporalMetrics)}/metrics`)).body;
  return operationCounts(body, 'SignalWithStartWorkflowExecution');
}

/** A counter of the restarted helmflow's /metrics (they start at 0), by its name and labels as written there. */
async function counter(metricsUrl: string, series: string): Promise<number> {
  return seriesValue((await get(metricsUrl)).body, series) ?? 0;
}

/** Desired-state signals the restarted helmflow has sent so far. */
const desiredSignals = (metricsUrl: string) => counter(metricsUrl, 'helmflow_signals_total{signal="desired"}');

/** Resync sweeps the restarted helmflow's controller has finished so far. */
const sweepsDone = (metricsUrl: string) => counter(metricsUrl, 'helmflow_resync_sweeps_total');

/** Write requests the apiserver has served so far, by resource. */
function apiserverWrites(): Map<string, number> {
  const scraped = kubectl(['get', '--raw', '/metrics']);
  if (scraped.status !== 0) throw new Error(`kubectl get --raw /metrics: ${scraped.stderr}`);
  return writesByResource(scraped.stdout);
}

console.error(`people-first --charts ${String(count)}, ${new Date().toISOString()}; load average ${load()}`);
await stopStack(layout, log);
rmSync(layout.stateDir, { recursive: true, force: true });
await startStack(layout, log);
await installCrds('helm.k3sm.io');
const settings = helmflowSettings({ ...productionLeaseTimings(), resyncSeconds: 60, httpPort: await freePort() });
const metricsUrl = `http://127.0.0.1:${String(settings.httpPort)}/metrics`;
const connection = await Connection.connect({ address: layout.temporalAddress });
const temporal = new Client({ connection, namespace: settings.temporalNamespace });
let run = await startRun(settings, 'compiled');
try {
  const many = await installMany(count, run.pid, metricsUrl);
  console.error(`  ${String(count)} charts installed in ${(many.installedMs.at(-1) ?? 0) / 1000} s`);
  const ns = (await clients().core.listNamespace()).items
    .map((n) => n.metadata?.name ?? '')
    .find((n) => n.startsWith('many-'));
  if (ns === undefined) throw new Error('no namespace of the installed charts');

  // The restart: a controller that forgot what it delivered re-signals every chart.
  await run.process.stop();
  const temporalBefore = await signalWithStartCounts();
  const restarted = Date.now();
  // When each desired state was signalled, from the restarted process's log (the change's included).
  const signalled: number[] = [];
  run = await startRun(settings, 'compiled', undefined, {
    onSignal: (kind) => {
      if (kind === 'desired') signalled.push(Date.now());
    },
  });
  console.error(`  restarted: /readyz after ${String(run.readyMs)} ms`);

  // A person's change, in the middle of the flood.
  const person = await freshNamespace('people');
  const chart = buildChart({ name: 'people' });
  const applied = Date.now();
  apply(helmChart(person, 'newcomer', { chartContent: chart.chartContent }));
  const handle = temporal.workflow.getHandle(
    chartWorkflowId({ group: 'helm.k3sm.io', namespace: person, name: 'newcomer' }),
  );
  const started = await waitFor(
    'the new chart workflow started',
    async () => {
      try {
        await handle.describe();
        return Date.now();
      } catch (err) {
        if (err instanceof WorkflowNotFoundError) return undefined;
        throw err;
      }
    },
    { timeoutMs: 600_000, intervalMs: 50 },
  );
  const resyncAtApply = await desiredSignals(metricsUrl);
  console.error(
    `  apply → new chart's workflow started: ${String(started - applied)} ms (${String(resyncAtApply)} signals sent)`,
  );
  const jobCreated = await waitFor(
    'its install Job',
    async () =>
      await clients()
        .batch.readNamespacedJob({ name: 'helm-install-newcomer', namespace: person })
        .then(() => Date.now())
        .catch(() => undefined),
    { timeoutMs: 600_000, intervalMs: 50 },
  );

  // A cancel of an installed chart, also during the flood (if it still runs).
  const cancelled = 'chart-0';
  const cancelAt = Date.now();
  await temporal.workflow
    .getHandle(chartWorkflowId({ group: 'helm.k3sm.io', namespace: ns, name: cancelled }))
    .cancel();
  const paused = await waitFor(
    `${cancelled} Paused`,
    async () => ((await readHelmChart(ns, cancelled))?.status?.phase === 'Paused' ? Date.now() : undefined),
    { timeoutMs: 600_000, intervalMs: 50 },
  );
  const resyncAtPause = await desiredSignals(metricsUrl);
  console.error(`  cancel → Paused: ${String(paused - cancelAt)} ms (${String(resyncAtPause)} signals sent)`);
  const installed = await waitFor(
    'the new chart Installed',
    async () => ((await readHelmChart(person, 'newcomer'))?.status?.phase === 'Installed' ? Date.now() : undefined),
    { timeoutMs: 600_000, intervalMs: 100 },
  );
  // The flood's end: every chart re-signalled once, and the new one signalled.
  // Bounded: a flood that stalls is itself a finding, printed as how far it got.
  const floodDone = await waitFor(
    'every chart re-signalled',
    async () => ((await desiredSignals(metricsUrl)) >= count + 1 ? Date.now() : undefined),
    { timeoutMs: Math.max(120_000, count * 500), intervalMs: 200 },
  ).catch(() => undefined);
  const sentAtEnd = await desiredSignals(metricsUrl);
  const floodEnd = Date.now();
  const atServer = countsBetween(temporalBefore, await signalWithStartCounts());

  const s = (ms: number) => `${(ms / 1000).toFixed(1)} s`;
  console.log(`\n${String(count)} installed charts; helmflow run restarted, so its controller re-signals all of them:`);
  console.log(
    floodDone === undefined
      ? `  restart → every chart re-signalled (the flood):      not within ${s(Date.now() - restarted)}: ${String(sentAtEnd)} of ${String(count + 1)} signals sent`
      : `  restart → every chart re-signalled (the flood):      ${s(floodDone - restarted)}`,
  );
  console.log(
    `  apply of a new chart → its workflow started:         ${s(started - applied)} (${String(resyncAtApply)} desired-state signals sent by then, the new chart's included)`,
  );
  console.log(`  apply of a new chart → its install Job created:      ${s(jobCreated - applied)}`);
  console.log(`  apply of a new chart → Installed:                    ${s(installed - applied)}`);
  console.log(
    `  cancel of an installed chart → its status says Paused: ${s(paused - cancelAt)} (${String(resyncAtPause)} sent by then)`,
  );
  const marks = [5, 10, 20, 40, 60, 90, 120, 180, 240, 300].filter((m) => m * 1000 <= floodEnd - restarted);
  console.log(
    `  the flood over time (signals sent by seconds after the restart): ${sentBy(signalled, restarted, marks)
      .map(({ second, sent }) => `${String(second)} s: ${String(sent)}`)
      .join(', ')}`,
  );
  // Within the flood: once every chart is signalled, the quiet that follows is not a stall.
  const silence = longestSilence(signalled, restarted, floodDone ?? floodEnd);
  console.log(
    `  the longest silence (no desired state signalled): ${s(silence.ms)}, from ${s(silence.startMs)} after the restart`,
  );
  console.log(`  Temporal frontend, SignalWithStartWorkflowExecution since the restart: ${describeCounts(atServer)}`);
  console.log(`  load average at the end of the flood (2 cores): ${load()}`);

  // Idle: nothing changes from here on. The charts' histories, summed (one describe per workflow).
  const handles = Array.from({ length: count }, (_, i) =>
    temporal.workflow.getHandle(chartWorkflowId({ group: 'helm.k3sm.io', namespace: ns, name: `chart-${String(i)}` })),
  );
  const historyEvents = async () => {
    let sum = 0;
    for (let i = 0; i < handles.length; i += 20) {
      const lengths = await Promise.all(handles.slice(i, i + 20).map(async (h) => (await h.describe()).historyLength));
      sum += lengths.reduce((a, b) => a + b, 0);
    }
    return sum;
  };
  const nextSweep = async () => {
    const since = await sweepsDone(metricsUrl);
    await waitFor('the next resync sweep', async () => (await sweepsDone(metricsUrl)) > since || undefined, {
      timeoutMs: 300_000,
      intervalMs: 500,
    });
  };
  // Settled: a whole sweep passed without the histories growing (what the flood started has finished).
  const settledAt = Date.now();
  const idleFrom = await waitFor(
    'a sweep that left every history unchanged',
    async () => {
      const before = await historyEvents();
      await nextSweep();
      return (await historyEvents()) === before
        ? { events: before, writes: apiserverWrites(), at: Date.now() }
        : undefined;
    },
    { timeoutMs: 900_000, intervalMs: 0 },
  );
  await nextSweep();
  await nextSweep();
  const idleEvents = (await historyEvents()) - idleFrom.events;
  const idleWrites = requestsBetween(idleFrom.writes, apiserverWrites());
  const idleHours = (Date.now() - idleFrom.at) / 3_600_000;
  const chartHours = count * idleHours;
  const perResource = [...idleWrites].map(([resource, n]) => `${resource} ${String(n)}`).join(', ') || 'none';
  // Leases (leaders and the node's heartbeat) and the node's status are written at any number of charts.
  const ofCharts = [...idleWrites]
    .filter(([resource]) => resource !== 'leases' && resource !== 'nodes/status')
    .reduce((a, [, n]) => a + n, 0);
  console.log(`\nIdle, ${String(count)} installed charts (settled ${s(idleFrom.at - settledAt)} after the flood):`);
  console.log(
    `  window: ${s(Date.now() - idleFrom.at)}, two resync sweeps (every ${String(settings.resyncSeconds)} s): ${chartHours.toFixed(1)} chart-hours`,
  );
  console.log(
    `  history events written by the ${String(count)} workflows: ${String(idleEvents)} (${(idleEvents / chartHours).toFixed(2)} per chart-hour)`,
  );
  console.log(`  apiserver writes, by resource (every writer): ${perResource}`);
  console.log(
    `  apiserver writes other than Leases and Node status: ${String(ofCharts)} (${(ofCharts / chartHours).toFixed(2)} per chart-hour)`,
  );
  const idleRss = await idleRssMiB(run.pid);
  const idleMemory = await memoryOf(metricsUrl);
  if (idleMemory !== undefined) console.log(`  idle, where the memory is: ${describeMemory(idleMemory)}`);
  if (many.memoryAtPeak !== undefined) {
    console.log(
      `  while the first run installed them, at its most resident sample: ${describeMemory(many.memoryAtPeak)}`,
    );
  }
  console.log(
    `  samples while installing every ${String(many.sampleMs)} ms, failed and left out: ${String(many.failedSamples)}`,
  );
  console.log(
    `  helmflow run RSS, idle with every chart installed: ${String(idleRss)} MiB; peak since the restart ${String(mib(peakRssBytes(run.pid)))} MiB; peak while the first run installed them ${String(many.peakRssMiB)} MiB`,
  );
} finally {
  await run.process.stop().catch(() => run.process.kill());
  await connection.close();
  await stopStack(layout, log);
  rmSync(layout.stateDir, { recursive: true, force: true });
}
