// What waiting costs Temporal, for the two designs a chart workflow could wait for its Job with:
//  (a) an activity per waiting Job that heartbeats (helmflow's awaitJob: heartbeatTimeout 30 s, a heartbeat per
//      1 s look, sent on by the SDK at most every 24 s), holding one activity slot per waiting chart;
//  (b) a durable timer plus a Job-status signal, a short "read the Job" activity each time the timer fires.
// For each design, on a fresh Temporal dev server of its own: N bench-only workflows start and wait, the bench
// measures the hold (server CPU and RSS from /proc, the worker's, slots in use, requests from the server's
// metrics), then every Job "finishes" at once ((a) sees it in-process; (b) gets N signals sent as the
// controller's work queue would, 8 at a time) and it times how long until all N complete. The worker runs in
// this process, so "worker" figures are this process's.
// Run: npx tsx bench/wait-designs.ts [--charts N] [--hold S] [--poll S] [--design a|b]
//      (defaults 1000, 120 s, 60 s, both; needs the pinned Temporal binary: npm run setup)
import path from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { Client, Connection, WorkflowNotFoundError } from '@temporalio/client';
import { DefaultLogger, NativeConnection, Runtime, Worker, bundleWorkflowCode } from '@temporalio/worker';
import { Option } from 'commander';
import { readPins } from '../src/config/pins.js';
import { waitFor } from '../src/lib/wait.js';
import { FakeJobs, createWaitActivities } from './wait-designs/activities.js';
import { eachLimit } from './each-limit.js';
import { benchCommand, wholeNumber } from './flags.js';
import { historyByType } from './history.js';
import { cpuSeconds, rssBytes } from './proc.js';
import { grownByOperation, scrape, startDevServer } from './wait-designs/server.js';
import { jobFinishedSignal, type heartbeatWait, type timerSignalWait } from './wait-designs/workflows.js';

type Design = 'a' | 'b';
const flags = benchCommand('wait-designs', 'What waiting for a Job costs Temporal, design (a) against (b)')
  .option('--charts <n>', 'charts waiting at once', wholeNumber(1), 1000)
  .option('--hold <s>', 'seconds each Job runs', wholeNumber(1), 120)
  .option('--poll <s>', "seconds between design (b)'s timer reads", wholeNumber(1), 60)
  .addOption(new Option('--design <design>', 'one design only (default both)').choices(['a', 'b']))
  .parse()
  .opts<{ charts: number; hold: number; poll: number; design?: Design }>();
const { charts, hold: holdSeconds, poll: pollSeconds } = flags;
// helmflow's Job deadline by default (2 × helm's 300 s timeout); a longer hold needs a longer one.
const deadlineSeconds = Math.max(600, holdSeconds + 120);
// The idle server (worker polling, no workflows) is measured first, for a baseline.
const idleSeconds = Math.min(20, holdSeconds);
const helmflowSlots = 500;

const designs: Design[] = flags.design === undefined ? ['a', 'b'] : [flags.design];
const designNames: Record<Design, string> = { a: '(a) heartbeat activity', b: '(b) timer + signal' };

interface Figures {
  design: Design;
  slots: number;
  startSeconds: number;
  idleCpuPerSecond: number;
  idleWorkerCpuPerSecond: number;
  holdSeconds: number;
  serverCpu: number;
  serverRssPeak: number;
  workerCpu: number;
  workerRssPeak: number;
  slotsInUse: { min: number; max: number };
  reads: number;
  frontend: Map<string, number>;
  persistence: Map<string, number>;
  events: { min: number; mean: number; max: number };
  eventTypes: string;
  signalsSeconds: number;
  signalsTooLate: number;
  finishToLastClose: number;
  finishToMedianClose: number;
  finishServerCpu: number;
}

Runtime.install({ logger: new DefaultLogger('WARN') });
const workflowBundle = await bundleWorkflowCode({
  workflowsPath: path.join(path.dirname(fileURLToPath(import.meta.url)), 'wait-designs', 'workflows.ts'),
  logger: new DefaultLogger('WARN'),
});

async function measure(design: Design): Promise<Figures> {
  const server = await startDevServer();
  const jobs = new FakeJobs();
  const taskQueue = `wait-design-${design}`;
  const slots = design === 'a' ? charts : helmflowSlots;
  const workerConnection = await NativeConnection.connect({ address: server.address });
  const clientConnection = await Connection.connect({ address: server.address });
  const client = new Client({ connection: clientConnection });
  const worker = await Worker.create({
    connection: workerConnection,
    taskQueue,
    workflowBundle,
    activities: createWaitActivities(jobs),
    // (a) needs a slot per waiting chart; (b) keeps helmflow's default.
    maxConcurrentActivityTaskExecutions: slots,
    // Every waiting workflow stays cached in both designs, as helmflow's heap-sized default (about 2,000 here) does.
    maxCachedWorkflows: charts + 10,
  });
  const running = worker.run();
  try {
    await delay(2_000);
    const idleCpu0 = cpuSeconds(server.pid);
    const idleWorker0 = process.cpuUsage();
    await delay(idleSeconds * 1000);
    const idleCpuPerSecond = (cpuSeconds(server.pid) - idleCpu0) / idleSeconds;
    const idleWorker = process.cpuUsage(idleWorker0);
    const idleWorkerCpuPerSecond = (idleWorker.user + idleWorker.system) / 1e6 / idleSeconds;

    const ids = Array.from({ length: charts }, (_, i) => `chart-${design}-${i}`);
    const started = performance.now();
    await eachLimit(ids, 16, async (workflowId) => {
      if (design === 'a') {
        await client.workflow.start<typeof heartbeatWait>('heartbeatWait', {
          taskQueue,
          workflowId,
          args: [deadlineSeconds],
        });
      } else {
        await client.workflow.start<typeof timerSignalWait>('timerSignalWait', {
          taskQueue,
          workflowId,
          args: [pollSeconds],
        });
      }
    });
    // Waiting means: (a) every activity is running; (b) every workflow has run its first task and sits in cache.
    await waitFor(
      `${charts} workflows waiting`,
      () => {
        const status = worker.getStatus();
        if (design === 'a') return jobs.waiting === charts || undefined;
        return (status.numCachedWorkflows >= charts && status.numInFlightWorkflowActivations === 0) || undefined;
      },
      { timeoutMs: 60_000 + charts * 200, intervalMs: 100 },
    );
    const startSeconds = (performance.now() - started) / 1000;
    // Lets the last workflow tasks' completions reach the server before the hold is measured.
    await delay(3_000);

    let serverRssPeak = 0;
    let workerRssPeak = 0;
    const slotsInUse = { min: Number.POSITIVE_INFINITY, max: 0 };
    const sample = () => {
      serverRssPeak = Math.max(serverRssPeak, rssBytes(server.pid));
      workerRssPeak = Math.max(workerRssPeak, process.memoryUsage.rss());
      const inUse = worker.getStatus().numInFlightActivities;
      slotsInUse.min = Math.min(slotsInUse.min, inUse);
      slotsInUse.max = Math.max(slotsInUse.max, inUse);
    };
    const metrics0 = await scrape(server.metricsPort);
    const serverCpu0 = cpuSeconds(server.pid);
    const workerCpu0 = process.cpuUsage();
    const reads0 = jobs.reads;
    const hold0 = performance.now();
    sample();
    const sampler = setInterval(sample, 1_000);
    await delay(holdSeconds * 1000);
    clearInterval(sampler);
    sample();
    const held = (performance.now() - hold0) / 1000;
    const serverCpu = cpuSeconds(server.pid) - serverCpu0;
    const workerUsage = process.cpuUsage(workerCpu0);
    const reads = jobs.reads - reads0;
    const metrics1 = await scrape(server.metricsPort);

    const finishCpu0 = cpuSeconds(server.pid);
    const finishAt = Date.now();
    let signalsTooLate = 0;
    jobs.finished = true;
    if (design === 'b') {
      await eachLimit(ids, 8, async (id) => {
        try {
          await client.workflow.getHandle(id).signal(jobFinishedSignal, 'succeeded');
        } catch (err) {
          // A timer that fired just now read the finished Job first; the controller would shrug this off too.
          if (!(err instanceof WorkflowNotFoundError)) throw err;
          signalsTooLate += 1;
        }
      });
    }
    const signalsSeconds = (Date.now() - finishAt) / 1000;
    await waitFor(
      `${charts} workflows completed`,
      async () => (await client.workflow.count('ExecutionStatus="Running"')).count === 0 || undefined,
      { timeoutMs: 120_000 + charts * 200, intervalMs: 250 },
    );
    const finishServerCpu = cpuSeconds(server.pid) - finishCpu0;

    const closes: number[] = [];
    const lengths: number[] = [];
    await eachLimit(ids, 16, async (id) => {
      const description = await client.workflow.getHandle(id).describe();
      if (description.status.name !== 'COMPLETED') throw new Error(`${id} ended ${description.status.name}`);
      closes.push((description.closeTime?.getTime() ?? Number.NaN) - finishAt);
      lengths.push(description.historyLength);
    });
    closes.sort((x, y) => x - y);
    const history = await historyByType(client.workflow.getHandle(ids[0] ?? ''));

    return {
      design,
      slots,
      startSeconds,
      idleCpuPerSecond,
      idleWorkerCpuPerSecond,
      holdSeconds: held,
      serverCpu,
      serverRssPeak,
      workerCpu: (workerUsage.user + workerUsage.system) / 1e6,
      workerRssPeak,
      slotsInUse,
      reads,
      // Requests the frontend answered for the bench's namespace (the server's own system workflows left out).
      frontend: grownByOperation(metrics0, metrics1, 'service_latency_count', [
        'namespace="default"',
        'service_name="frontend"',
      ]),
      persistence: grownByOperation(metrics0, metrics1, 'persistence_requests'),
      events: {
        min: Math.min(...lengths),
        mean: lengths.reduce((sum, n) => sum + n, 0) / lengths.length,
        max: Math.max(...lengths),
      },
      eventTypes: history.types,
      signalsSeconds,
      signalsTooLate,
      finishToLastClose: (closes.at(-1) ?? Number.NaN) / 1000,
      finishToMedianClose: (closes[Math.floor(closes.length / 2)] ?? Number.NaN) / 1000,
      finishServerCpu,
    };
  } finally {
    worker.shutdown();
    await running;
    await workerConnection.close();
    await clientConnection.close();
    await server.stop();
  }
}

const results: [Design, Figures][] = [];
for (const design of designs) results.push([design, await measure(design)]);

const mib = (bytes: number) => `${Math.round(bytes / 1024 / 1024)} MiB`;
const sum = (counts: Map<string, number>) => [...counts.values()].reduce((total, n) => total + n, 0);
const top = (counts: Map<string, number>, k: number) =>
  [...counts]
    .sort((x, y) => y[1] - x[1])
    .slice(0, k)
    .map(([operation, n]) => `${operation} ${n}`)
    .join(', ');
const perCore = (cpu: number, seconds: number) => `${((100 * cpu) / seconds).toFixed(1)}% of a core`;

// What makes the server work while a chart waits: (a) a heartbeat every 0.8 × 30 s (the SDK's throttle);
// (b) a timer firing (and its read) every poll interval. Per wake-up costs turn the hold into a steady-state rate
// that does not depend on how the bursts of firings fell inside the hold.
const wakeups = (f: Figures) => (f.design === 'a' ? (f.frontend.get('RecordActivityTaskHeartbeat') ?? 0) : f.reads);
const wakeupsPerSecond = (design: Design) => (design === 'a' ? 1 / (0.8 * 30) : 1 / pollSeconds);
const cpuPerWakeup = (f: Figures) => (f.serverCpu - f.idleCpuPerSecond * f.holdSeconds) / wakeups(f);
/** A per-wake-up figure, or n/a when the hold was too short for any (e.g. shorter than the poll interval). */
const ifWoken = (f: Figures, show: () => string) => (wakeups(f) === 0 ? 'n/a' : show());

const rows: [string, (f: Figures) => string][] = [
  ['worker activity slots (configured)', (f) => `${f.slots}`],
  ['start N workflows until all waiting', (f) => `${f.startSeconds.toFixed(1)} s`],
  ['server CPU idle (worker polling, no wf)', (f) => perCore(f.idleCpuPerSecond, 1)],
  ['hold (measured)', (f) => `${f.holdSeconds.toFixed(1)} s`],
  ['server CPU during hold', (f) => `${f.serverCpu.toFixed(2)} s = ${perCore(f.serverCpu, f.holdSeconds)}`],
  ['  wake-ups of the server during hold', (f) => `${wakeups(f)} ${f.design === 'a' ? 'heartbeats' : 'timer firings'}`],
  ['  server CPU above idle, per wake-up', (f) => ifWoken(f, () => `${(1000 * cpuPerWakeup(f)).toFixed(1)} ms`)],
  [
    '  UpdateWorkflowExecution per wake-up',
    (f) => ifWoken(f, () => ((f.persistence.get('UpdateWorkflowExecution') ?? 0) / wakeups(f)).toFixed(1)),
  ],
  [
    '  → 1000 charts waiting, steady state',
    (f) => ifWoken(f, () => `${perCore(cpuPerWakeup(f) * 1000 * wakeupsPerSecond(f.design), 1)} (est.)`),
  ],
  ['server RSS (peak during hold)', (f) => mib(f.serverRssPeak)],
  [
    'worker (this process) CPU during hold',
    (f) => `${f.workerCpu.toFixed(2)} s = ${perCore(f.workerCpu, f.holdSeconds)}`,
  ],
  ['worker (this process) CPU idle', (f) => perCore(f.idleWorkerCpuPerSecond, 1)],
  ['worker (this process) RSS (peak, hold)', (f) => mib(f.workerRssPeak)],
  ['activity slots in use during hold', (f) => `${f.slotsInUse.min}–${f.slotsInUse.max}`],
  ['readJob activities during hold', (f) => `${f.reads}`],
  ['frontend RPCs during hold (all kinds)', (f) => `${sum(f.frontend)}`],
  ['  of which heartbeats', (f) => `${f.frontend.get('RecordActivityTaskHeartbeat') ?? 0}`],
  ['persistence requests during hold', (f) => `${sum(f.persistence)}`],
  ['  of which UpdateWorkflowExecution', (f) => `${f.persistence.get('UpdateWorkflowExecution') ?? 0}`],
  ['history events per workflow', (f) => `${f.events.mean.toFixed(1)} (${f.events.min}–${f.events.max})`],
  [
    'finish: signals sent in',
    (f) => `${f.signalsSeconds.toFixed(1)} s${f.signalsTooLate > 0 ? ` (${f.signalsTooLate} found it done)` : ''}`,
  ],
  [
    'finish to median / last completed',
    (f) => `${f.finishToMedianClose.toFixed(2)} / ${f.finishToLastClose.toFixed(2)} s`,
  ],
  ['server CPU, finish to all completed', (f) => `${f.finishServerCpu.toFixed(2)} s`],
];

console.log(
  `wait designs: ${charts} charts waiting ${holdSeconds} s; Temporal dev server ${readPins().temporal} ` +
    `(a fresh one per design), worker in this process; (b) polls every ${pollSeconds} s`,
);
const width = Math.max(...rows.map(([label]) => label.length)) + 2;
const column = Math.max(28, ...rows.flatMap(([, value]) => results.map(([, f]) => value(f).length + 2)));
console.log(`${''.padEnd(width)}${results.map(([design]) => designNames[design].padEnd(column)).join('')}`.trimEnd());
for (const [label, value] of rows) {
  console.log(`${label.padEnd(width)}${results.map(([, f]) => value(f).padEnd(column)).join('')}`.trimEnd());
}
for (const [design, f] of results) {
  console.log(`${designNames[design]}:`);
  console.log(`  frontend RPCs during hold, top: ${top(f.frontend, 4)}`);
  console.log(`  persistence during hold, top:   ${top(f.persistence, 4)}`);
  console.log(`  history of chart-${design}-0:         ${f.eventTypes}`);
}
