// What the benchmarks measure of one `helmflow run` process on an embedded stack: its start time (process start
// to /readyz 200), its resident memory idle, and how it installs many charts at once. Shared by
// bench/many-charts.ts and bench/runtimes.ts. The caller points the e2e support code at its stack first
// (HELMFLOW_TEST_STACK_DIR / HELMFLOW_TEST_PORT_OFFSET), then imports this module.
import { setTimeout as delay } from 'node:timers/promises';
import { CustomObjectsApi } from '@kubernetes/client-node';
import type { Settings } from '../src/app/settings.js';
import { get } from '../src/lib/http.js';
import { waitFor } from '../src/lib/wait.js';
import { chartWaits, type ChartTimes, type ChartWaits } from './chart-waits.js';
import { memorySplit, type MemorySplit } from './memory-split.js';
import { mib, rssBytes } from './proc.js';
import { buildChart } from '../test/e2e/support/charts.js';
import { spawnHelmflow, type HelmflowProcess, type ProcessHooks } from '../test/e2e/support/helmflow-process.js';
import { apply, helmChart } from '../test/e2e/support/helmcharts.js';
import { clients, freshNamespace, kubeConfig } from '../test/e2e/support/kube.js';

/** How a bench runs helmflow: the compiled CLI, or the TypeScript sources through tsx. */
export const runtimes = ['compiled', 'tsx'] as const;
export type Runtime = (typeof runtimes)[number];

/** The resident memory of a process, in MiB, as the kernel counts it. */
export const rssMiB = (pid: number): number => mib(rssBytes(pid));

export interface StartedRun {
  process: HelmflowProcess;
  pid: number;
  /** Process start to /readyz 200. */
  readyMs: number;
}

/**
 * `helmflow run` with `settings` (an httpPort of its own), timed until /readyz answers 200; `hooks` hear the
 * controller's log lines (a desired state signalled, leading) as the process writes them; `nodeFlags` go to its
 * node (V8 flags, say) and `env` to its environment (the image's allocator setting, say).
 */
export async function startRun(
  settings: Settings,
  runtime: Runtime,
  timeoutMs = 180_000,
  hooks: ProcessHooks = {},
  nodeFlags: string[] = [],
  env: NodeJS.ProcessEnv = {},
): Promise<StartedRun> {
  const started = performance.now();
  const process = spawnHelmflow('run', settings, hooks, runtime, nodeFlags, env);
  try {
    await waitFor(
      `helmflow run (${runtime}) /readyz`,
      async () => (await get(`http://127.0.0.1:${String(settings.httpPort)}/readyz`)).status === 200,
      { timeoutMs, intervalMs: 50 },
    );
  } catch (err) {
    await process.kill();
    throw err;
  }
  return { process, pid: process.child.pid ?? -1, readyMs: Math.round(performance.now() - started) };
}

/** Idle memory: the highest of 20 samples over 10 s, nothing applied. A sampling window, not a synchronisation. */
export async function idleRssMiB(pid: number): Promise<number> {
  let rss = 0;
  for (let i = 0; i < 20; i++) {
    rss = Math.max(rss, rssMiB(pid));
    await delay(500);
  }
  return rss;
}

export interface ManyInstalls {
  charts: number;
  /** Where they were applied. */
  namespace: string;
  /** `kubectl apply` of all of them. */
  appliedMs: number;
  /** Per chart, apply to Installed, sorted (as the bench's polling saw it: late for those done while kubectl ran). */
  installedMs: number[];
  /** Per chart, its own creation to its Job created and to Installed, from its conditions. */
  waits: ChartWaits;
  /** Install Jobs active at once, sampled every `sampleMs`. */
  peakActiveJobs: number;
  /** The process's resident memory, sampled every `sampleMs` while they install. */
  peakRssMiB: number;
  /** Where the memory was at the most resident of the /metrics samples (every `sampleMs`), when asked for. */
  memoryAtPeak?: MemorySplit;
  /** How often the samplers looked: a list of N Jobs or HelmCharts is work for the apiserver too. */
  sampleMs: number;
  /** Samples whose call failed (an apiserver busy with N charts may drop a connection): left out. */
  failedSamples: number;
}

const chart = buildChart({ name: 'many' });

/**
 * Applies `count` chartContent HelmCharts to a fresh namespace at once and waits until every one is Installed.
 * With `metricsUrl` (helmflow's /metrics), it also samples where the process's memory is.
 */
export async function installMany(count: number, pid: number, metricsUrl?: string): Promise<ManyInstalls> {
  const ns = await freshNamespace('many');
  const { batch } = clients();
  const custom = kubeConfig().makeApiClient(CustomObjectsApi);
  // Every 500 ms up to 250 charts, then slower: at 1,000 a list every 500 ms would be a load of its own.
  const sampleMs = Math.max(500, count * 2);
  let peakActiveJobs = 0;
  let memoryAtPeak: MemorySplit | undefined;
  let failedSamples = 0;
  const failed = () => {
    failedSamples += 1;
  };
  const sampleJobs = setInterval(() => {
    batch
      .listNamespacedJob({ namespace: ns })
      .then((jobs) => {
        const active = jobs.items.filter((j) => (j.status?.active ?? 0) > 0).length;
        peakActiveJobs = Math.max(peakActiveJobs, active);
      })
      .catch(failed);
  }, sampleMs);
  const sampleMemory = setInterval(() => {
    if (metricsUrl === undefined) return;
    memoryOf(metricsUrl)
      .then((split) => {
        if (split !== undefined && split.residentBytes > (memoryAtPeak?.residentBytes ?? 0)) memoryAtPeak = split;
      })
      .catch(failed);
  }, sampleMs);
  try {
    const start = performance.now();
    const done = new Map<string, number>();
    // One kubectl apply of them all (a v1 List), as `kubectl apply -f dir/` would: a kubectl per chart would time
    // kubectl's own start on a loaded machine rather than helmflow.
    const items = Array.from({ length: count }, (_, i) =>
      helmChart(ns, `chart-${String(i)}`, { chartContent: chart.chartContent }),
    );
    // The default minute is for one chart. kubectl applies a List one object at a time, each waiting in line at
    // the apiserver while helmflow loads it: 1,000 took 78 to 895 s in bench/side-by-side.ts, and more than 500 s
    // here on 2026-12-04, which ended the run.
    apply({ apiVersion: 'v1', kind: 'List', items }, Math.max(60_000, count * 2_000));
    const appliedMs = Math.round(performance.now() - start);
    let peakRssMiB = 0;
    let last: ChartTimes[] = [];
    await waitFor(
      `${String(count)} charts Installed`,
      async () => {
        peakRssMiB = Math.max(peakRssMiB, rssMiB(pid));
        const all = (await custom.listNamespacedCustomObject({
          group: 'helm.k3sm.io',
          version: 'v1',
          namespace: ns,
          plural: 'helmcharts',
        })) as { items: (ChartTimes & { metadata: { name: string }; status?: { phase?: string } })[] };
        last = all.items;
        for (const item of all.items) {
          if (item.status?.phase === 'Installed' && !done.has(item.metadata.name)) {
            done.set(item.metadata.name, Math.round(performance.now() - start));
          }
        }
        return done.size === count || undefined;
      },
      { timeoutMs: Math.max(300_000, count * 15_000), intervalMs: sampleMs },
    );
    const installedMs = [...done.values()].sort((a, b) => a - b);
    return {
      charts: count,
      namespace: ns,
      appliedMs,
      installedMs,
      waits: chartWaits(last),
      peakActiveJobs,
      peakRssMiB,
      ...(memoryAtPeak === undefined ? {} : { memoryAtPeak }),
      sampleMs,
      failedSamples,
    };
  } finally {
    clearInterval(sampleJobs);
    clearInterval(sampleMemory);
  }
}

/** Where a helmflow process's memory is now, from its /metrics (undefined without default metrics). */
export async function memoryOf(metricsUrl: string): Promise<MemorySplit | undefined> {
  return memorySplit((await get(metricsUrl)).body);
}

/** One line on where the memory was at its most resident sample. */
export function describeMemory(split: MemorySplit): string {
  const rest = split.residentBytes - split.heapTotalBytes - split.externalBytes;
  const { trims } = split;
  const trimmed =
    trims === undefined
      ? ''
      : `; malloc_trim so far ${String(trims.count)} times, ${trims.seconds.toFixed(2)} s (each at most ${String(trims.longestAtMostSeconds)} s), ${String(mib(trims.returnedBytes))} MiB given back`;
  return `${String(mib(split.residentBytes))} MiB: main-thread JS heap ${String(mib(split.heapTotalBytes))} MiB (${String(mib(split.heapUsedBytes))} in use), outside the heap ${String(mib(split.externalBytes))} MiB, the rest (the workflow thread, the Temporal core, code) ${String(mib(rest))} MiB${trimmed}`;
}

/** The p-th percentile of sorted values. */
export function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? 0;
}
