// What each helm process on this machine cost, minute by minute, from outside: run it beside another bench (for
// instance `bench/side-by-side.ts`) to see whether helm's own CPU per process changes over a run. It reads /proc every
// 200 ms and keeps, for each process named helm, its first argument (upgrade, template, …), its CPU seconds at the
// last read (user + system; what it spent in its last 200 ms is missed) and how long it was seen. On its end (after
// --seconds, or Ctrl-C) it prints, per minute of a process's start and per first argument: how many, the median and
// mean CPU, and the mean time seen.
// Run: npx tsx bench/helm-processes.ts [--seconds S]   (default 1800)
import { readFileSync, readdirSync } from 'node:fs';
import { setTimeout as delay } from 'node:timers/promises';
import { benchCommand, wholeNumber } from './flags.js';
import { median } from './median.js';
import { cpuSeconds, startTicks } from './proc.js';

const { seconds } = benchCommand('helm-processes', "Each helm process's CPU, minute by minute, read from /proc")
  .option('--seconds <s>', 'how long to watch', wholeNumber(1), 1800)
  .parse()
  .opts<{ seconds: number }>();

interface Seen {
  kind: string;
  firstSeen: number;
  lastSeen: number;
  cpu: number;
}

const seen = new Map<string, Seen>();
const started = Date.now();

/** The pid's command name and first argument, or undefined once it has gone. */
function helmKind(pid: string): string | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    if (stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')')) !== 'helm') return undefined;
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0')[1] ?? '';
  } catch {
    return undefined;
  }
}

function look(): void {
  const now = Date.now();
  for (const pid of readdirSync('/proc')) {
    if (!/^\d+$/.test(pid)) continue;
    const kind = helmKind(pid);
    if (kind === undefined) continue;
    try {
      const key = `${pid}@${startTicks(Number(pid))}`;
      const cpu = cpuSeconds(Number(pid));
      const known = seen.get(key);
      if (known === undefined) seen.set(key, { kind, firstSeen: now, lastSeen: now, cpu });
      else Object.assign(known, { lastSeen: now, cpu });
    } catch {
      // It ended between the reads.
    }
  }
}

function report(): void {
  const groups = new Map<string, Seen[]>();
  for (const process of seen.values()) {
    const minute = Math.floor((process.firstSeen - started) / 60_000);
    const key = `${String(minute).padStart(3)} | ${process.kind}`;
    groups.set(key, [...(groups.get(key) ?? []), process]);
  }
  console.log('| minute | helm … | processes | CPU median | CPU mean | seen for (mean) |');
  console.log('|---|---|---|---|---|---|');
  for (const [key, list] of [...groups].sort(([a], [b]) => a.localeCompare(b))) {
    const cpu = list.map((p) => p.cpu);
    const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
    const life = mean(list.map((p) => (p.lastSeen - p.firstSeen) / 1000));
    const row = [key, String(list.length), median(cpu).toFixed(2), mean(cpu).toFixed(3), life.toFixed(1)];
    console.log(`| ${row.join(' | ')} |`);
  }
}

const stop = { asked: false };
process.once('SIGINT', () => (stop.asked = true));
process.once('SIGTERM', () => (stop.asked = true));
while (!stop.asked && Date.now() - started < seconds * 1000) {
  look();
  await delay(200);
}
report();
