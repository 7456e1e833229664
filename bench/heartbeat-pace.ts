// What a waiting step's heartbeats cost the worker, handed to the SDK at every look or paced
// (activities/heartbeat-pace.ts), side by side, each on a fresh Temporal dev server of its own: N bench-only
// workflows each run one activity that looks once a second, as helmflow's Job-slot wait does, for the hold. The SDK's
// core sends Temporal at most one heartbeat per 0.8 × the heartbeat timeout either way (the workflow's 30 s: 24 s), so
// the server's share should not move; what moves is the worker's main thread. The worker runs in this process, so
// "worker" figures are this process's (its idle sampling included, the same in both runs).
// Run: npx tsx bench/heartbeat-pace.ts [--waiters N] [--hold S] [--rounds R]   (defaults 1000, 60 s, 2; needs
//   `npm run setup`)
import path from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { Context } from '@temporalio/activity';
import { Client, Connection } from '@temporalio/client';
import { DefaultLogger, NativeConnection, Runtime, Worker, bundleWorkflowCode } from '@temporalio/worker';
import { HEARTBEAT_PACE_MS, pacedHeartbeat } from '../activities/heartbeat-pace.js';
import { nextLook } from '../activities/next-look.js';
import { readPins } from '../src/config/pins.js';
import { waitFor } from '../src/lib/wait.js';
import { eachLimit } from './each-limit.js';
import { benchCommand, wholeNumber } from './flags.js';
import { cpuSeconds } from './proc.js';
import type { heartbeatWait } from './wait-designs/workflows.js';
import { grownByOperation, scrape, startDevServer } from './wait-designs/server.js';

const { waiters, hold, rounds } = benchCommand(
  'heartbeat-pace',
  "What a waiting step's heartbeats cost, at every look or paced",
)
  .option('--waiters <n>', 'activities waiting at once', wholeNumber(1), 1000)
  .option('--hold <s>', 'seconds measured while they all wait', wholeNumber(1), 60)
  .option('--rounds <n>', 'rounds, each measuring both', wholeNumber(1), 2)
  .parse()
  .opts<{ waiters: number; hold: number; rounds: number }>();

const LOOK_MS = 1_000;
type Heartbeat = (context: Context) => (details: unknown) => void;
const designs: [string, Heartbeat][] = [
  [
    'at every look',
    (context) => (details) => {
      context.heartbeat(details);
    },
  ],
  [`paced, one per ${String(HEARTBEAT_PACE_MS / 1000)} s of looks`, (context) => pacedHeartbeat(context)],
];

Runtime.install({ logger: new DefaultLogger('WARN') });
const workflowBundle = await bundleWorkflowCode({
  workflowsPath: path.join(path.dirname(fileURLToPath(import.meta.url)), 'wait-designs', 'workflows.ts'),
  logger: new DefaultLogger('WARN'),
});

interface Figures {
  name: string;
  workerCpu: number;
  serverCpu: number;
  heartbeatsReceived: number;
  held: number;
}

async function measure(name: string, heartbeatOf: Heartbeat): Promise<Figures> {
  const server = await startDevServer();
  const state = { finished: false, waiting: 0 };
  // The server's metrics answer a moment before its frontend does.
  const workerConnection = await waitFor(
    "the dev server's frontend",
    () => NativeConnection.connect({ address: server.address }).catch(() => undefined),
    { timeoutMs: 60_000, intervalMs: 500 },
  );
  const clientConnection = await Connection.connect({ address: server.address });
  const client = new Client({ connection: clientConnection });
  const taskQueue = 'heartbeat-pace';
  const worker = await Worker.create({
    connection: workerConnection,
    taskQueue,
    workflowBundle,
    activities: {
      async awaitJob() {
        const context = Context.current();
        const heartbeat = heartbeatOf(context);
        state.waiting += 1;
        try {
          for (let looks = 1; !state.finished; looks += 1) {
            heartbeat({ looks });
            await nextLook(context, LOOK_MS);
          }
          return 'succeeded';
        } finally {
          state.waiting -= 1;
        }
      },
    },
    maxConcurrentActivityTaskExecutions: waiters,
    maxCachedWorkflows: waiters + 10,
  });
  const running = worker.run();
  try {
    const ids = Array.from({ length: waiters }, (_, i) => `waiter-${String(i)}`);
    await eachLimit(ids, 16, async (workflowId) => {
      await client.workflow.start<typeof heartbeatWait>('heartbeatWait', { taskQueue, workflowId, args: [600] });
    });
    await waitFor(`${String(waiters)} activities waiting`, () => state.waiting === waiters || undefined, {
      timeoutMs: 60_000 + waiters * 200,
      intervalMs: 100,
    });
    // Past the first heartbeats of every activity, which both designs send at once.
    await delay(5_000);
    const metrics0 = await scrape(server.metricsPort);
    const serverCpu0 = cpuSeconds(server.pid);
    const workerCpu0 = process.cpuUsage();
    const started = performance.now();
    await delay(hold * 1000);
    const held = (performance.now() - started) / 1000;
    const usage = process.cpuUsage(workerCpu0);
    const serverCpu = cpuSeconds(server.pid) - serverCpu0;
    const received = grownByOperation(metrics0, await scrape(server.metricsPort), 'service_latency_count', [
      'namespace="default"',
      'service_name="frontend"',
    ]);
    state.finished = true;
    await waitFor(
      `${String(waiters)} workflows completed`,
      async () => (await client.workflow.count('ExecutionStatus="Running"')).count === 0 || undefined,
      { timeoutMs: 120_000, intervalMs: 250 },
    );
    return {
      name,
      workerCpu: (usage.user + usage.system) / 1e6,
      serverCpu,
      heartbeatsReceived: received.get('RecordActivityTaskHeartbeat') ?? 0,
      held,
    };
  } finally {
    worker.shutdown();
    await running;
    await workerConnection.close();
    await clientConnection.close();
    await server.stop();
  }
}

// Every round measures both, the second round in the other order, so neither always has the machine's later state.
const results: Figures[] = [];
for (let round = 0; round < rounds; round++) {
  for (const [name, heartbeatOf] of round % 2 === 0 ? designs : [...designs].reverse()) {
    results.push(await measure(name, heartbeatOf));
  }
}
console.log(
  `\n${String(waiters)} activities looking once a second, ${String(hold)} s measured, Temporal ${readPins().temporal}\n`,
);
console.log('| heartbeat | worker CPU | per waiter-second | Temporal CPU | heartbeats Temporal received |');
console.log('|---|---|---|---|---|');
for (const r of results) {
  const perWaiterSecond = (r.workerCpu / (waiters * r.held)) * 1e3;
  console.log(
    `| ${r.name} | ${r.workerCpu.toFixed(1)} s (${((r.workerCpu / r.held) * 100).toFixed(0)} % of a core) | ` +
      `${perWaiterSecond.toFixed(3)} ms | ${r.serverCpu.toFixed(1)} s | ${String(r.heartbeatsReceived)} |`,
  );
}
