// What one helm process costs, by what it does, against a fresh embedded stack of the bench's own (issue 10: helm is
// most of helmflow's CPU per chart, and each install Job runs helm twice). N rounds, each running, one after the
// other, with fresh helm state as a Job's emptyDir gives it:
//  - `helm version`: starting the process, nothing else;
//  - `helm template` of the chart, locally: start and render;
//  - pre-flight as an install Job runs it: `helm template --dry-run=server --output-dir …`;
//  - `helm upgrade --install --wait` of a new release, with its own empty kube cache (as each Job container has
//    today: a HOME of its own), and of another new release whose kube cache a pre-flight of it filled (what the
//    two containers of one Job would have sharing `KUBECACHEDIR` on its emptyDir); the two alternate first.
// For each it prints the median, min and max CPU seconds (user + system, as the kernel counts the ended process,
// to its 10 ms tick) and the apiserver requests in each process's window (its apiserver_request_total, less the
// bench's own reads of /metrics; the stack's own background requests are in them: `helm version`, which asks the
// apiserver nothing, shows how many).
// Run: npx tsx bench/helm-process-cost.ts [--rounds N]   (default 20; needs `npm run setup`;
//   HELMFLOW_TEST_STACK_DIR / HELMFLOW_TEST_PORT_OFFSET move its stack, default $TMPDIR/helmflow-bench-helm-stack, +3100)
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pino } from 'pino';
import { readPins } from '../src/config/pins.js';
import { startStack, stopStack } from '../src/devstack/stack.js';
import { benchCommand, wholeNumber } from './flags.js';
import type { HelmSample } from './helm-run.js';
import { median } from './median.js';

const { rounds } = benchCommand(
  'helm-process-cost',
  'What one helm process costs, by what it does (needs `npm run setup`)',
)
  .option('--rounds <n>', 'rounds, each running every kind of helm process once', wholeNumber(1), 20)
  .parse()
  .opts<{ rounds: number }>();
process.env.HELMFLOW_TEST_STACK_DIR ??= path.join(tmpdir(), 'helmflow-bench-helm-stack');
process.env.HELMFLOW_TEST_PORT_OFFSET ??= '3100';
const { buildChart } = await import('../test/e2e/support/charts.js');
const { freshNamespace } = await import('../test/e2e/support/kube.js');
const { testLayout } = await import('../test/e2e/support/stack.js');
const { runHelm } = await import('./helm-run.js');

const layout = testLayout();
const log = pino({ level: 'warn' });

await stopStack(layout, log);
rmSync(layout.stateDir, { recursive: true, force: true });
await startStack(layout, log);
try {
  const chart = buildChart({ name: 'bench', values: { greeting: 'hello' } });
  const namespace = await freshNamespace('bench-helm-cost');
  const out = mkdtempSync(path.join(tmpdir(), 'helmflow-bench-helm-out-'));
  const preflight = (release: string) => [
    'template',
    release,
    chart.path,
    '--namespace',
    namespace,
    '--dry-run=server',
    '--output-dir',
    out,
  ];
  const upgrade = (release: string) => [
    'upgrade',
    '--install',
    release,
    chart.path,
    '--namespace',
    namespace,
    '--wait',
    '--timeout',
    '300s',
  ];
  const kinds = [
    'helm version',
    'helm template (local)',
    'pre-flight: helm template --dry-run=server',
    'helm upgrade --install --wait, its own kube cache',
    'helm upgrade --install --wait, after a pre-flight in the same kube cache',
  ] as const;
  const samples = new Map<string, HelmSample[]>(kinds.map((k) => [k, []]));
  const add = (kind: (typeof kinds)[number], sample: HelmSample) => samples.get(kind)?.push(sample);
  for (let i = 0; i < rounds; i++) {
    add(kinds[0], runHelm(['version']));
    add(kinds[1], runHelm(['template', `local-${String(i)}`, chart.path]));
    const separate = () => add(kinds[3], runHelm(upgrade(`own-${String(i)}`)));
    const shared = () => {
      const kubeCache = mkdtempSync(path.join(tmpdir(), 'helmflow-bench-kube-cache-'));
      add(kinds[2], runHelm(preflight(`shared-${String(i)}`), kubeCache));
      add(kinds[4], runHelm(upgrade(`shared-${String(i)}`), kubeCache));
      rmSync(kubeCache, { recursive: true, force: true });
    };
    if (i % 2 === 0) {
      separate();
      shared();
    } else {
      shared();
      separate();
    }
  }
  rmSync(out, { recursive: true, force: true });
  console.log(`\nhelm ${readPins().helm}, ${String(rounds)} rounds, a tiny chartContent chart\n`);
  console.log('| helm process | CPU median | min | max | apiserver requests (median) |');
  console.log('|---|---|---|---|---|');
  for (const [kind, list] of samples) {
    const cpu = list.map((s) => s.cpu);
    const fixed = (x: number) => `${x.toFixed(2)} s`;
    const row = [kind, fixed(median(cpu)), fixed(Math.min(...cpu)), fixed(Math.max(...cpu))];
    console.log(`| ${row.join(' | ')} | ${String(median(list.map((s) => s.requests)))} |`);
  }
} finally {
  await stopStack(layout, log);
}
