// Prints the embedded stack's warm start time (tools built, state directory fresh or reused) and the memory
// its processes hold once ready. Run: npx tsx bench/stack-start.ts [--runs N]
import { rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pino } from 'pino';
import { shiftedPorts, StackLayout } from '../src/devstack/layout.js';
import { processesUnder } from '../src/devstack/process.js';
import { startStack, stopStack } from '../src/devstack/stack.js';
import { benchCommand, wholeNumber } from './flags.js';
import { mib, rssBytes } from './proc.js';

const { runs } = benchCommand('stack-start', "The embedded stack's warm start time and its memory once ready")
  .option('--runs <n>', 'starts: the first on an empty state directory, the rest on the state kept', wholeNumber(1), 3)
  .parse()
  .opts<{ runs: number }>();
const layout = new StackLayout(path.join(tmpdir(), 'helmflow-bench-stack'), shiftedPorts(4000));
const log = pino({ level: 'warn' });

await stopStack(layout, log);
rmSync(layout.stateDir, { recursive: true, force: true });
const timings: { kind: string; ms: number }[] = [];
for (let i = 0; i < runs; i++) {
  const kind = i === 0 ? 'first start (empty state dir)' : 'restart (state kept)';
  const started = performance.now();
  await startStack(layout, log);
  timings.push({ kind, ms: Math.round(performance.now() - started) });
  if (i === runs - 1) {
    const processes = processesUnder(layout.stateDir).map((p) => ({ ...p, rss: rssBytes(p.pid) }));
    console.log('memory of the running stack (RSS):');
    for (const p of processes)
      console.log(`  ${mib(p.rss).toFixed(0).padStart(6)} MiB  ${p.cmdline.split(' ')[0] ?? ''}`);
    const total = processes.reduce((sum, p) => sum + p.rss, 0);
    console.log(`  ${mib(total).toFixed(0).padStart(6)} MiB  total`);
  }
  await stopStack(layout, log);
}
console.log('start times:');
for (const t of timings) console.log(`  ${String(t.ms).padStart(6)} ms  ${t.kind}`);
rmSync(layout.stateDir, { recursive: true, force: true });
