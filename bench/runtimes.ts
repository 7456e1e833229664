// `helmflow run` under tsx (the TypeScript sources, as `npm start` runs them) and compiled (the `helmflow` bin, as
// the image runs it), side by side in one run on one embedded stack of the bench's own: start time (process start
// to /readyz 200) and resident memory idle and during N installs at once, against the stack's Temporal (its search
// attributes registered at start); then start time against a bare Temporal dev server (no --search-attribute, a
// namespace created for the run), where the worker registers its attributes first. Prints one table.
// Run: npx tsx bench/runtimes.ts [--charts N]   (default 100; needs `npm run setup`, which also builds dist/)
import { rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pino } from 'pino';
import { freePort } from '../src/lib/free-port.js';
import { startStack, stopStack } from '../src/devstack/stack.js';
import { benchCommand, wholeNumber } from './flags.js';

const { charts } = benchCommand(
  'runtimes',
  '`helmflow run` under tsx and compiled, side by side (needs `npm run setup`)',
)
  .option('--charts <n>', 'charts installed at once by each runtime', wholeNumber(1), 100)
  .parse()
  .opts<{ charts: number }>();

process.env.HELMFLOW_TEST_STACK_DIR ??= path.join(tmpdir(), 'helmflow-bench-runtimes-stack');
process.env.HELMFLOW_TEST_PORT_OFFSET ??= '2900';
const { helmflowSettings, productionLeaseTimings } = await import('../test/e2e/support/helmflow.js');
const { installCrds } = await import('../test/e2e/support/crds.js');
const { testLayout } = await import('../test/e2e/support/stack.js');
const { startBareTemporal } = await import('../test/e2e/support/bare-temporal.js');
const { idleRssMiB, installMany, percentile, startRun } = await import('./helmflow-run.js');
type Runtime = import('./helmflow-run.js').Runtime;

const runtimes: Runtime[] = ['tsx', 'compiled'];
const layout = testLayout();
const log = pino({ level: 'warn' });

interface Figures {
  readyMs: number;
  idleMiB: number;
  peakMiB: number;
  allInstalledMs: number;
  p50Ms: number;
  bareReadyMs: number;
}
const figures = new Map<Runtime, Figures>();

await stopStack(layout, log);
rmSync(layout.stateDir, { recursive: true, force: true });
await startStack(layout, log);
const bare = await startBareTemporal();
try {
  await installCrds('helm.k3sm.io');
  for (const runtime of runtimes) {
    // A task queue, Lease and port of its own: the two runs never share a workflow or a leader.
    const run = await startRun(helmflowSettings({ ...productionLeaseTimings(), httpPort: await freePort() }), runtime);
    let stack: Omit<Figures, 'bareReadyMs'>;
    try {
      const idleMiB = await idleRssMiB(run.pid);
      const many = await installMany(charts, run.pid);
      stack = {
        readyMs: run.readyMs,
        idleMiB,
        peakMiB: many.peakRssMiB,
        allInstalledMs: many.installedMs.at(-1) ?? 0,
        p50Ms: percentile(many.installedMs, 50),
      };
    } finally {
      await run.process.stop();
    }
    // A namespace the bare server has never seen helmflow in: the worker registers its attributes before ready.
    const namespace = `helmflow-bench-${runtime}`;
    bare.cli(['operator', 'namespace', 'create', '--namespace', namespace]);
    const onBare = await startRun(
      helmflowSettings({
        ...productionLeaseTimings(),
        httpPort: await freePort(),
        temporalAddress: bare.address,
        temporalNamespace: namespace,
      }),
      runtime,
    );
    await onBare.process.stop();
    figures.set(runtime, { ...stack, bareReadyMs: onBare.readyMs });
  }
} finally {
  await bare.stop();
  await stopStack(layout, log);
  rmSync(layout.stateDir, { recursive: true, force: true });
}

const s = (ms: number) => `${(ms / 1000).toFixed(1)} s`;
const rows: [string, (f: Figures) => string][] = [
  ['start to /readyz (stack Temporal)', (f) => s(f.readyMs)],
  ['start to /readyz (bare Temporal, registers)', (f) => s(f.bareReadyMs)],
  ['RSS idle (max over 10 s after ready)', (f) => `${String(f.idleMiB)} MiB`],
  [`RSS peak during ${String(charts)} installs`, (f) => `${String(f.peakMiB)} MiB`],
  [`${String(charts)} charts all Installed (p50)`, (f) => `${s(f.allInstalledMs)} (${s(f.p50Ms)})`],
];
const width = Math.max(...rows.map(([label]) => label.length));
console.log(`helmflow run, ${String(charts)} chartContent charts, real helm, native node, 2 cores`);
console.log(`${'figure'.padEnd(width)}  ${runtimes.map((r) => r.padStart(16)).join('  ')}`);
for (const [label, value] of rows) {
  console.log(
    `${label.padEnd(width)}  ${runtimes.map((r) => value(figures.get(r) as Figures).padStart(16)).join('  ')}`,
  );
}
