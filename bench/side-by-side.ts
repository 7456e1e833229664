// helmflow side by side with helm itself and with k3s's helm-controller (issue 10), on one fresh embedded stack of
// the bench's own. N tiny chartContent charts (built here, one ConfigMap each) are installed by, one system after
// the other so none pollutes another's CPU figures, each in a namespace of its own and cleaned up after it:
//  1. helm run directly, 8 at a time: `helm upgrade --install … --wait`, the command helmflow's Jobs run (the floor);
//  2. helmflow (`helmflow run`, controller + worker in one process, the compiled build: `npm run build` first),
//     on its own group helm.k3sm.io;
//  3. k3s's helm-controller at the version tools/pins.json pins (built on demand), on helm.cattle.io.
// helmflow and k3s get all N HelmCharts in one `kubectl apply --server-side`. For each it prints apply → all install
// Jobs created, apply → all installed (k3s's klipper-helm pods cannot run on the native node), CPU seconds and
// RSS (idle before the apply → the process's peak) of the controller process, CPU seconds of the Temporal server,
// then the ratios helmflow/floor and helmflow/k3s, the history events of one helmflow install, and the steps that ran
// more than once, over all charts and for the ten installed last (why a tail was slow). Beside them, where
// the CPU went: the helm processes' own CPU (the floor's, and those the native node ran for helmflow's Jobs) and how
// busy the whole machine was while each system worked (busy core-seconds over wall time × cores). A second table splits
// each system's window by process: the stack's etcd, kube-apiserver, kube-controller-manager and native node (its own
// CPU; its ended children are the helm processes), Temporal, the controller and helm, against the machine's busy total.
// A third counts the requests the apiserver served in each window per chart, by verb and resource (its own
// apiserver_request_total, from every client), so the apiserver's CPU can be traced to who asks it what.
// `--skip-preflight` annotates helmflow's charts `helm.k3sm.io/preflight: skip` (no pre-flight helm process per Job).
// `--max-running-jobs N` runs helmflow with that cap on its install Jobs running at once (default: helmflow's own).
// `--floor-parallelism P` runs the floor's helm P at a time instead of 8 (to tell what helm's own concurrency costs).
// `--releases-apart` has helmflow's charts install their releases into a namespace of their own (spec.targetNamespace),
// as the floor's namespace holds only its releases: not beside the HelmCharts' ConfigMaps, Secrets, Jobs and pods.
// `--workflow-cache N` runs helmflow with that many chart workflows kept in the worker's memory. helmflow runs with
// the glibc malloc arena cap the image sets (bench/image-env.ts); `--malloc-arena-max A` with A (0: glibc's own).
// Run: npx tsx bench/side-by-side.ts [--charts N] [--skip-preflight] [--max-running-jobs N] [--workflow-cache N]
//   [--floor-parallelism P] [--releases-apart] [--malloc-arena-max A]
//   (default 100; needs `npm run setup` and `npm run build`;
//   HELMFLOW_TEST_STACK_DIR / HELMFLOW_TEST_PORT_OFFSET move its stack, default $TMPDIR/helmflow-bench-side-stack, +2900)
import { execFile, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { availableParallelism, loadavg, tmpdir } from 'node:os';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import path from 'node:path';
import { CustomObjectsApi, PatchStrategy, setHeaderOptions, type V1Job } from '@kubernetes/client-node';
import { Client, Connection, WorkflowNotFoundError } from '@temporalio/client';
import { pino } from 'pino';
import { stringify } from 'yaml';
import type { ApiGroup, HelmChart } from '../src/api/index.js';
import type { LastingWatch, Listed } from '../test/e2e/support/keep-watching.js';
import { namespaceLabelKey } from '../src/build/labels.js';
import { toolPaths } from '../src/config/pins.js';
import { freePort } from '../src/lib/free-port.js';
import { get } from '../src/lib/http.js';
import type { Component } from '../src/devstack/layout.js';
import { readPid } from '../src/devstack/process.js';
import { startStack, stopStack } from '../src/devstack/stack.js';
import { WaitAborted, waitFor } from '../src/lib/wait.js';
import { chartWorkflowId } from '../workflows/contract.js';
import { requestsBetween, requestsByVerb } from './apiserver-writes.js';
import { eachLimit } from './each-limit.js';
import { benchCommand, wholeNumber } from './flags.js';
import { describeMalloc, mallocArenaMaxOption, mallocEnv } from './image-env.js';
import {
  countAttemptsStarted,
  countNamed,
  eventsByType,
  historyEvents,
  retriedSteps,
  type HistoryEvent,
} from './history.js';
import { nonZeroSeries, sumsByLabel } from './prometheus-text.js';
import { describeReceived, describeRetried, type RetriedLine } from './retried-steps.js';
import { RETRIED_MESSAGE } from '../activities/retried.js';
import { startK3sHelmController } from '../test/e2e/support/k3s-helm-controller.js';
import { cpuSeconds, endedChildrenCpuSeconds, machineBusySeconds, mib, peakRssBytes, rssBytes } from './proc.js';

const flags = benchCommand('side-by-side', "helmflow side by side with helm itself and k3s's helm-controller")
  .option('--charts <n>', 'how many tiny charts each system installs', wholeNumber(1), 100)
  .option('--skip-preflight', "annotate helmflow's charts helm.k3sm.io/preflight: skip")
  .option(
    '--max-running-jobs <n>',
    "helmflow's cap on install Jobs running at once (default: helmflow's)",
    wholeNumber(1),
  )
  .option('--floor-parallelism <p>', 'helm processes the floor runs at once', wholeNumber(1), 8)
  .option('--releases-apart', "helmflow's releases in a namespace of their own (spec.targetNamespace)")
  .option(
    '--workflow-cache <n>',
    "chart workflows helmflow's worker keeps in memory (default: helmflow's)",
    wholeNumber(0),
  )
  .addOption(mallocArenaMaxOption())
  .addHelpText(
    'after',
    'needs `npm run setup` and `npm run build`; HELMFLOW_TEST_STACK_DIR / HELMFLOW_TEST_PORT_OFFSET move its stack\n' +
      '(default $TMPDIR/helmflow-bench-side-stack, +2900)',
  )
  .parse()
  .opts<{
    charts: number;
    skipPreflight?: true;
    maxRunningJobs?: number;
    workflowCache?: number;
    floorParallelism: number;
    releasesApart?: true;
    mallocArenaMax: number;
  }>();
process.env.HELMFLOW_TEST_STACK_DIR ??= path.join(tmpdir(), 'helmflow-bench-side-stack');
process.env.HELMFLOW_TEST_PORT_OFFSET ??= '2900';
const { buildChart } = await import('../test/e2e/support/charts.js');
const { installCrds } = await import('../test/e2e/support/crds.js');
const { helmflowSettings, productionLeaseTimings } = await import('../test/e2e/support/helmflow.js');
const { spawnHelmflow } = await import('../test/e2e/support/helmflow-process.js');
const { helmChart } = await import('../test/e2e/support/helmcharts.js');
const { clients, kubeConfig } = await import('../test/e2e/support/kube.js');
const { keepWatching } = await import('../test/e2e/support/keep-watching.js');
const { testLayout } = await import('../test/e2e/support/stack.js');

const { charts: count, maxRunningJobs, workflowCache, floorParallelism, mallocArenaMax } = flags;
const skipPreflight = flags.skipPreflight === true;
const releasesApart = flags.releasesApart === true;
const cores = availableParallelism();
const names = Array.from({ length: count }, (_, i) => `chart-${String(i)}`);
const layout = testLayout();
const log = pino({ level: 'warn' });
const chart = buildChart({ name: 'tiny' });
// Generous deadlines: the bench reports slowness, it does not fail on it (1,000 charts took helmflow 11 min).
const deadlineMs = Math.max(900_000, count * 3_000);

interface Figures {
  system: string;
  applyMs?: number;
  jobsMs?: number;
  installedMs?: number;
  /** Why there is no installed figure. */
  notInstalled?: string;
  cpu: number;
  cpuToJobs?: number;
  cpuOf: string;
  /** False for the floor, whose cpu is its helm processes' own (there is no controller). */
  cpuIsController: boolean;
  rssIdle?: number;
  rssPeak?: number;
  /** The most resident of 5 s of samples once every chart is installed (helmflow only). */
  rssInstalled?: number;
  temporalCpu: number;
  temporalUsed: boolean;
  /** CPU seconds of the helm processes: the floor's own, or those the native node ran for helmflow's Jobs. */
  helmCpu?: number;
  /** Busy core-seconds of the whole machine over the system's run, and that run's wall time. */
  busy: { seconds: number; wallMs: number };
  /** CPU seconds of the stack's other components over the same window. */
  stack: StackCpu;
  /** Requests the apiserver served over the same window, by verb and resource, from every client. */
  requests: Map<string, number>;
}

/** The machine's busy core-seconds from now, and the wall time, for Figures.busy. */
function busySince(): () => Figures['busy'] {
  const [busy0, start] = [machineBusySeconds(), Date.now()];
  return () => ({ seconds: machineBusySeconds() - busy0, wallMs: Date.now() - start });
}

/**
 * A command's exit, run without blocking this process (its watches time what they see as it happens). With
 * `onLine`, each line it prints is counted there (kubectl apply prints one per object, so a slow apply shows where).
 */
function run(
  command: string,
  args: string[],
  env: NodeJS.ProcessEnv = {},
  input?: string,
  onLine?: () => void,
): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, {
      env: { ...process.env, KUBECONFIG: layout.adminKubeconfig, ...env },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    // Read even when nobody counts, so kubectl never blocks on a full pipe.
    child.stdout.on('data', (chunk: Buffer) => {
      for (const byte of chunk) if (byte === 0x0a) onLine?.();
    });
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr = (stderr + chunk.toString()).slice(-4000)));
    child.once('error', reject);
    child.once('exit', (code) => {
      if (code === 0) resolve();
      else
        reject(
          new Error(`${path.basename(command)} ${args.slice(0, 3).join(' ')} failed (${String(code)}): ${stderr}`),
        );
    });
    child.stdin.end(input);
  });
}

/** All N HelmCharts of `group` in one `kubectl apply`, as a user applying a directory would. */
async function applyCharts(
  group: ApiGroup,
  namespace: string,
  annotations: Record<string, string> = {},
  applied: { count: number } = { count: 0 },
  spec: Record<string, unknown> = {},
): Promise<void> {
  const objects = names.map((name) => ({
    ...helmChart(namespace, name, { chartContent: chart.chartContent, ...spec }, { annotations }),
    apiVersion: `${group}/v1`,
  }));
  const yaml = objects.map((object) => stringify(object)).join('---\n');
  const args = ['apply', '--server-side', '--field-manager=bench', '-f', '-'];
  await run(toolPaths().kubectl, args, {}, yaml, () => (applied.count += 1));
}

/**
 * Says on stderr that the apiserver ended a watch and keepWatching listed again (it closes watches it finds
 * unresponsive under load); what it saw only in the list is timed when the list saw it, late by the gap.
 */
function sayGaps(what: string, watch: LastingWatch): void {
  if (watch.gaps > 0) console.error(`the ${what} was ended ${String(watch.gaps)} times and listed again`);
}

/** Ends a wait at once when a watch could not list again within keepWatching's deadline: its record is incomplete. */
function failIfGone(what: string, watch: LastingWatch): void {
  if (watch.failure !== undefined) throw new WaitAborted(`the ${what} stopped: ${watch.failure.message}`);
}

/** When each HelmChart of `namespace` was first seen Installed at its current generation, by keepWatching. */
async function watchInstalled(group: ApiGroup, namespace: string) {
  const installedAt = new Map<string, number>();
  const see = (object: HelmChart) => {
    const { name, generation } = object.metadata;
    const current = object.status?.observedGeneration === generation;
    if (object.status?.phase === 'Installed' && current && !installedAt.has(name)) installedAt.set(name, Date.now());
  };
  const custom = kubeConfig().makeApiClient(CustomObjectsApi);
  const list = async () =>
    (await custom.listNamespacedCustomObject({
      group,
      version: 'v1',
      namespace,
      plural: 'helmcharts',
    })) as Listed<HelmChart>;
  const what = `HelmChart watch of ${namespace}`;
  const watch = await keepWatching<HelmChart>(`/apis/${group}/v1/namespaces/${namespace}/helmcharts`, list, {
    event: (_type, object) => {
      see(object);
    },
    listed: (items) => {
      items.forEach(see);
    },
  });
  return {
    installedAt,
    /** The time the last of all N was installed, once all are. */
    allInstalled: (): number | undefined => {
      failIfGone(what, watch);
      return installedAt.size === count ? Math.max(...installedAt.values()) : undefined;
    },
    stop: () => {
      watch.stop();
      sayGaps(what, watch);
    },
  };
}

/** When each Job of `namespace` was first seen, by keepWatching: its name and the time, by uid. */
async function watchJobsCreated(namespace: string) {
  const firstSeen = new Map<string, { name: string; seenAt: number }>();
  const see = (job: V1Job) => {
    const uid = job.metadata?.uid ?? '';
    if (!firstSeen.has(uid)) firstSeen.set(uid, { name: job.metadata?.name ?? '', seenAt: Date.now() });
  };
  const { batch } = clients();
  const what = `Job watch of ${namespace}`;
  const watch = await keepWatching<V1Job>(
    `/apis/batch/v1/namespaces/${namespace}/jobs`,
    () => batch.listNamespacedJob({ namespace }),
    {
      event: (type, job) => {
        if (type !== 'DELETED') see(job);
      },
      listed: (items) => {
        items.forEach(see);
      },
    },
  );
  return {
    /** The Jobs seen so far. */
    seen: () => [...firstSeen.values()],
    /** Throws WaitAborted once the watch has stopped for good. */
    failIfGone: () => {
      failIfGone(what, watch);
    },
    stop: () => {
      watch.stop();
      sayGaps(what, watch);
    },
  };
}

/** The time the last of the N install Jobs was created, once all are (both systems name them helm-install-<chart>). */
const allJobsCreated = (jobs: Awaited<ReturnType<typeof watchJobsCreated>>) => (): number | undefined => {
  jobs.failIfGone();
  const installs = jobs.seen().filter((job) => job.name.startsWith('helm-install-'));
  const names = new Set(installs.map((job) => job.name));
  return names.size === count ? Math.max(...installs.map((job) => job.seenAt)) : undefined;
};

/**
 * What may slow a controller down, sampled every 2 s while it works: the longest event-loop stall of the helmflow
 * process in each interval (prom-client's nodejs_eventloop_lag_max_seconds, reset at each scrape of its /metrics),
 * how long the apiserver took to answer one GET (of a namespace) from this process, and this process's own
 * event-loop delay (its watches count what they see when they see it). The worst of each since the last
 * progress line is printed with it, so a controller that stops leading can be told apart: its own event loop, or
 * an apiserver that does not answer.
 */
function sampleSlowness(metricsUrl: string | undefined): { line: () => string; stop: () => void } {
  let worstLag = 0;
  let worstApi = 0;
  const ownLoop = monitorEventLoopDelay({ resolution: 20 });
  ownLoop.enable();
  const { core } = clients();
  const sample = async () => {
    if (metricsUrl !== undefined) {
      const metrics = await get(metricsUrl).catch(() => undefined);
      const lag = /^nodejs_eventloop_lag_max_seconds (\S+)$/m.exec(metrics?.body ?? '')?.[1];
      if (lag !== undefined) worstLag = Math.max(worstLag, Number(lag));
    }
    const started = Date.now();
    await core.readNamespace({ name: 'kube-system' }).catch(() => undefined);
    worstApi = Math.max(worstApi, Date.now() - started);
  };
  const timer = setInterval(() => void sample(), 2_000);
  timer.unref();
  return {
    line: () => {
      const lag = metricsUrl === undefined ? '' : `; worst event-loop stall ${worstLag.toFixed(1)} s`;
      const own = `; the bench's own worst event-loop delay ${(ownLoop.max / 1e9).toFixed(1)} s`;
      const text = `${lag}; slowest apiserver GET ${(worstApi / 1000).toFixed(1)} s${own}`;
      [worstLag, worstApi] = [0, 0];
      ownLoop.reset();
      return text;
    },
    stop: () => {
      clearInterval(timer);
      ownLoop.disable();
    },
  };
}

/** How far a system is, on stderr every 15 s while it works, so a long run shows life (and where it stalls). */
function reportProgress(system: string, start: number, line: () => string): () => void {
  const timer = setInterval(() => {
    console.error(`[${system} +${String(Math.round((Date.now() - start) / 1000))} s] ${line()}`);
  }, 15_000);
  timer.unref(); // a run that fails half-way still exits
  return () => {
    clearInterval(timer);
  };
}

async function createNamespace(name: string): Promise<void> {
  await clients().core.createNamespace({ body: { metadata: { name } } });
}

/** Deletes a namespace and waits until it and everything in it are gone. */
async function deleteNamespace(name: string): Promise<void> {
  const { core } = clients();
  await core.deleteNamespace({ name });
  await waitFor(
    `namespace ${name} to be gone`,
    async () => {
      try {
        await core.readNamespace({ name });
        return undefined;
      } catch (err) {
        return (err as { code?: number }).code === 404 || undefined;
      }
    },
    { timeoutMs: deadlineMs, intervalMs: 1_000 },
  );
}

/** The highest RSS over a few seconds of doing nothing, once started: what the process holds idle. */
async function idleRss(pid: number): Promise<number> {
  let highest = 0;
  const until = Date.now() + 5_000;
  await waitFor('an idle RSS sample', () => ((highest = Math.max(highest, rssBytes(pid))), Date.now() >= until), {
    timeoutMs: 30_000,
    intervalMs: 500,
  });
  return highest;
}

/** A component's pid from the pid file the stack wrote when it started it (the file `helmflow status` reads). */
function stackPid(component: Component): number {
  const pid = readPid(layout.pidFile(component));
  if (pid === undefined) throw new Error(`the stack runs no ${component}`);
  return pid;
}
const temporalPid = () => stackPid('temporal');
const nativeNodePid = () => stackPid('native-node');

/** The components whose CPU only the second table shows (Temporal has a column in the first). */
const otherComponents = ['etcd', 'kube-apiserver', 'kube-controller-manager', 'native-node'] as const;
type OtherComponent = (typeof otherComponents)[number];
type StackCpu = Record<OtherComponent, number>;

const eachComponent = (seconds: (component: OtherComponent) => number): StackCpu =>
  Object.fromEntries(otherComponents.map((component) => [component, seconds(component)])) as StackCpu;

/**
 * Those components' CPU seconds from now, for Figures.stack; taken beside busySince so both cover one window.
 * The native node's is its own (utime + stime): its ended children are the helm processes, counted apart.
 */
function stackCpuSince(): () => StackCpu {
  const start = eachComponent((component) => cpuSeconds(stackPid(component)));
  return () => eachComponent((component) => cpuSeconds(stackPid(component)) - start[component]);
}

/** The apiserver's own request counts (its /metrics), by verb and resource. */
function apiserverRequests(): Promise<Map<string, number>> {
  return new Promise((resolve, reject) => {
    execFile(
      toolPaths().kubectl,
      ['get', '--raw', '/metrics'],
      { env: { ...process.env, KUBECONFIG: layout.adminKubeconfig }, maxBuffer: 256 * 1024 * 1024 },
      (err, stdout) => {
        if (err === null) resolve(requestsByVerb(stdout));
        else reject(new Error(`kubectl get --raw /metrics: ${err.message}`));
      },
    );
  });
}

/** The requests the apiserver serves from now, for Figures.requests; taken beside busySince. */
async function requestsSince(): Promise<() => Promise<Map<string, number>>> {
  const before = await apiserverRequests();
  return async () => requestsBetween(before, await apiserverRequests());
}

async function floor(): Promise<Figures> {
  const namespace = 'bench-floor';
  await createNamespace(namespace);
  const home = mkdtempSync(path.join(tmpdir(), 'helmflow-bench-helm-'));
  const env = {
    HELM_CACHE_HOME: path.join(home, 'cache'),
    HELM_CONFIG_HOME: path.join(home, 'config'),
    HELM_DATA_HOME: path.join(home, 'data'),
  };
  const requests = await requestsSince();
  const [temporal0, helm0, start] = [cpuSeconds(temporalPid()), endedChildrenCpuSeconds(), Date.now()];
  const [busy, stack] = [busySince(), stackCpuSince()];
  await eachLimit(names, floorParallelism, (name) =>
    run(
      toolPaths().helm,
      ['upgrade', '--install', name, chart.path, '--namespace', namespace, '--wait', '--timeout', '300s'],
      env,
    ),
  );
  const helmCpu = endedChildrenCpuSeconds() - helm0;
  const figures: Figures = {
    system: `helm directly, ${String(floorParallelism)} at a time (the floor)`,
    installedMs: Date.now() - start,
    cpu: helmCpu,
    cpuOf: 'the helm processes',
    cpuIsController: false,
    temporalCpu: cpuSeconds(temporalPid()) - temporal0,
    temporalUsed: false,
    helmCpu,
    busy: busy(),
    stack: stack(),
    requests: await requests(),
  };
  rmSync(home, { recursive: true, force: true });
  await deleteNamespace(namespace);
  return figures;
}

interface HistoryFigures {
  lastInstalled: string;
  events: number;
  types: string;
  sampled: number[];
  /** The charts installed last, when (s after the apply) and their steps that ran more than once. */
  tail: { name: string; seconds: number; retried: string[] }[];
  /** Over all N charts: each kind of retried step ("awaitJobSlot attempt 2 (before: HEARTBEAT timeout)"), and by whom. */
  retried: Map<string, string[]>;
  /** Over all N charts: the signals taken and the steps scheduled, by name ("signal releaseChanged" → 12). */
  named: Map<string, number>;
  /** Over all N charts: the activity attempts the histories started, by step. */
  attempts: Map<string, number>;
  /** helmflow's log lines of the steps that ran again, grouped (bench/retried-steps.ts). */
  retriedSaid?: string[];
  /** Per step, the attempts the histories started beside the tasks the worker's core received. */
  receivedSaid?: string[];
}

/** How many of the charts installed last the bench looks into: a slow tail shows there. */
const TAIL = 10;

/**
 * Workflow history events, each chart's history read once after all were installed: the chart installed last, by
 * type; a spread of charts' lengths; and the steps that ran more than once.
 */
async function historyOf(
  client: Client,
  group: ApiGroup,
  namespace: string,
  installedAt: Map<string, number>,
  start: number,
) {
  const eventsOf = new Map<string, HistoryEvent[]>();
  await eachLimit(names, 16, async (name) => {
    eventsOf.set(name, await historyEvents(client.workflow.getHandle(chartWorkflowId({ group, namespace, name }))));
  });
  const latest = [...installedAt].sort((a, b) => b[1] - a[1]).slice(0, TAIL);
  const lastInstalled = latest[0]?.[0] ?? names[0] ?? '';
  const history = eventsByType(eventsOf.get(lastInstalled) ?? []);
  const samples = Math.min(20, count);
  const sampled: number[] = [];
  for (let k = 0; k < samples; k++)
    sampled.push(eventsOf.get(names[Math.floor((k * count) / samples)] ?? '')?.length ?? 0);
  const stepsOf = new Map([...eventsOf].map(([name, events]) => [name, retriedSteps(events)]));
  const tail = latest.map(([name, at]) => ({ name, seconds: (at - start) / 1000, retried: stepsOf.get(name) ?? [] }));
  const retried = new Map<string, string[]>();
  for (const [name, steps] of stepsOf)
    for (const step of steps) retried.set(step, [...(retried.get(step) ?? []), name]);
  const named = new Map<string, number>();
  const attempts = new Map<string, number>();
  for (const events of eventsOf.values()) {
    countNamed(events, named);
    countAttemptsStarted(events, attempts);
  }
  return {
    lastInstalled,
    ...history,
    sampled: sampled.sort((a, b) => a - b),
    tail,
    retried,
    named: new Map([...named].sort()),
    attempts: new Map([...attempts].sort()),
  } satisfies HistoryFigures;
}

/** After helmflow stopped: its workflows ended, its HelmCharts' finalizers dropped, its namespace and bindings gone. */
async function removeHelmflowCharts(client: Client, group: ApiGroup, namespace: string): Promise<void> {
  await eachLimit(names, 16, async (name) => {
    try {
      await client.workflow.getHandle(chartWorkflowId({ group, namespace, name })).terminate('bench cleanup');
    } catch (err) {
      if (!(err instanceof WorkflowNotFoundError)) throw err;
    }
  });
  const custom = kubeConfig().makeApiClient(CustomObjectsApi);
  await eachLimit(names, 16, async (name) => {
    await custom.patchNamespacedCustomObject(
      { group, version: 'v1', namespace, plural: 'helmcharts', name, body: { metadata: { finalizers: null } } },
      setHeaderOptions('Content-Type', PatchStrategy.MergePatch),
    );
  });
  await clients().rbac.deleteCollectionClusterRoleBinding({
    labelSelector: `${namespaceLabelKey(group)}=${namespace}`,
  });
  await deleteNamespace(namespace);
}

async function helmflow(): Promise<{ figures: Figures; history: HistoryFigures }> {
  const group: ApiGroup = 'helm.k3sm.io';
  const namespace = 'bench-helmflow';
  const releases = releasesApart ? 'bench-helmflow-releases' : namespace;
  await installCrds(group);
  await createNamespace(namespace);
  if (releasesApart) await createNamespace(releases);
  const settings = helmflowSettings({
    ...productionLeaseTimings(),
    group,
    httpPort: await freePort(),
    ...(maxRunningJobs === undefined ? {} : { maxRunningJobs }),
    ...(workflowCache === undefined ? {} : { workflowCache }),
  });
  const retriedLines: RetriedLine[] = [];
  const onLine = (entry: { msg?: string }) => {
    if (entry.msg === RETRIED_MESSAGE) retriedLines.push(entry as RetriedLine);
  };
  const running = spawnHelmflow('run', settings, { onLine }, 'compiled', [], mallocEnv(mallocArenaMax));
  const pid = running.child.pid ?? -1;
  const connection = await Connection.connect({ address: layout.temporalAddress });
  const client = new Client({ connection, namespace: settings.temporalNamespace });
  try {
    await waitFor(
      'helmflow /readyz',
      async () => (await get(`http://127.0.0.1:${String(settings.httpPort)}/readyz`)).status === 200,
      { timeoutMs: 180_000, intervalMs: 100 },
    );
    const rssIdle = await idleRss(pid);
    const jobs = await watchJobsCreated(namespace);
    const charts = await watchInstalled(group, namespace);
    const requests = await requestsSince();
    const [cpu0, temporal0, start] = [cpuSeconds(pid), cpuSeconds(temporalPid()), Date.now()];
    const [helm0, busy, stack] = [endedChildrenCpuSeconds(nativeNodePid()), busySince(), stackCpuSince()];
    const applied = { count: 0, done: false };
    const slowness = sampleSlowness(`http://127.0.0.1:${String(settings.httpPort)}/metrics`);
    const progress = reportProgress('helmflow', start, () => {
      const created = new Set(jobs.seen().map((job) => job.name)).size;
      const applying = applied.done ? '' : `kubectl has applied ${String(applied.count)}, `;
      return `${applying}${String(created)} Jobs created, ${String(charts.installedAt.size)} installed of ${String(count)}${slowness.line()}`;
    });
    const quiet = () => {
      progress();
      slowness.stop();
    };
    const annotations = skipPreflight ? { [`${group}/preflight`]: 'skip' } : {};
    await applyCharts(group, namespace, annotations, applied, releasesApart ? { targetNamespace: releases } : {});
    applied.done = true;
    const applyMs = Date.now() - start;
    const jobsAt = await waitFor('all install Jobs created', allJobsCreated(jobs), { timeoutMs: deadlineMs });
    const cpuToJobs = cpuSeconds(pid) - cpu0;
    const installedAt = await waitFor('all charts installed', charts.allInstalled, { timeoutMs: deadlineMs });
    quiet();
    const figures: Figures = {
      system:
        `helmflow run (controller + worker)${skipPreflight ? ', pre-flight skipped' : ''}` +
        (releasesApart ? ', releases in a namespace of their own' : '') +
        `, at most ${String(settings.maxRunningJobs)} Jobs running, ${String(settings.workflowCache)} workflows cached` +
        `, ${describeMalloc(mallocArenaMax)}`,
      applyMs,
      jobsMs: jobsAt - start,
      installedMs: installedAt - start,
      cpu: cpuSeconds(pid) - cpu0,
      cpuToJobs,
      cpuOf: 'helmflow run',
      cpuIsController: true,
      rssIdle,
      rssPeak: peakRssBytes(pid),
      temporalCpu: cpuSeconds(temporalPid()) - temporal0,
      temporalUsed: true,
      helmCpu: endedChildrenCpuSeconds(nativeNodePid()) - helm0,
      busy: busy(),
      stack: stack(),
      requests: await requests(),
    };
    // After the figures above, so that their windows end when the last chart is installed.
    figures.rssInstalled = await idleRss(pid);
    jobs.stop();
    charts.stop();
    const history = await historyOf(client, group, namespace, charts.installedAt, start);
    // The activity tasks the worker's core received, by type: set beside the attempts the histories started.
    const scrape = await get(`http://127.0.0.1:${String(settings.httpPort)}/metrics`).catch(() => undefined);
    const received = sumsByLabel(scrape?.body ?? '', 'temporal_activity_task_received_total', 'activity_type');
    await running.stop();
    await removeHelmflowCharts(client, group, namespace);
    if (releasesApart) await deleteNamespace(releases);
    // The core's calls to Temporal that failed (a poll the server answered after the core gave up on it, say).
    const failedCalls = nonZeroSeries(scrape?.body ?? '', [
      'temporal_long_request_failure_total',
      'temporal_request_failure_total',
    ]);
    const receivedSaid = [
      ...describeReceived(received, history.attempts),
      ...(failedCalls.length > 0 ? failedCalls : ["the worker's core counted no failed call to Temporal"]),
    ];
    return { figures, history: { ...history, retriedSaid: describeRetried(retriedLines), receivedSaid } };
  } finally {
    await running.kill();
    await connection.close();
  }
}

const klipperCannotRun = '— (its klipper-helm pods cannot run on the native node)';

async function k3s(): Promise<Figures> {
  const namespace = 'bench-k3s';
  await createNamespace(namespace);
  const controller = startK3sHelmController({
    kubeconfig: layout.adminKubeconfig,
    logFile: path.join(layout.logsDir, 'k3s-helm-controller.log'),
  });
  try {
    await waitFor('k3s helm-controller to start', controller.isStarted, { timeoutMs: 120_000 });
    const rssIdle = await idleRss(controller.pid);
    const jobs = await watchJobsCreated(namespace);
    const requests = await requestsSince();
    const [cpu0, temporal0, start] = [cpuSeconds(controller.pid), cpuSeconds(temporalPid()), Date.now()];
    const [busy, stack] = [busySince(), stackCpuSince()];
    await applyCharts('helm.cattle.io', namespace);
    const applyMs = Date.now() - start;
    const quiet = reportProgress('k3s', start, () => {
      return `${String(new Set(jobs.seen().map((job) => job.name)).size)} Jobs created of ${String(count)}`;
    });
    const jobsAt = await waitFor('all install Jobs created', allJobsCreated(jobs), { timeoutMs: deadlineMs });
    quiet();
    jobs.stop();
    return {
      system: 'k3s helm-controller v0.17.9',
      applyMs,
      jobsMs: jobsAt - start,
      notInstalled: klipperCannotRun,
      cpu: cpuSeconds(controller.pid) - cpu0,
      cpuOf: 'to Jobs created',
      cpuIsController: true,
      rssIdle,
      rssPeak: peakRssBytes(controller.pid),
      temporalCpu: cpuSeconds(temporalPid()) - temporal0,
      temporalUsed: false,
      busy: busy(),
      stack: stack(),
      requests: await requests(),
    };
  } finally {
    await controller.stop();
  }
}

const seconds = (ms: number | undefined) => (ms === undefined ? '—' : `${(ms / 1000).toFixed(1)} s`);
const ratio = (a: number | undefined, b: number | undefined) =>
  a === undefined || b === undefined || b === 0 ? '—' : `${(a / b).toFixed(1)} ×`;

function printTable(rows: Figures[]): void {
  console.log(
    `\n${String(count)} tiny chartContent charts, one fresh embedded stack (2 cores), each system alone in turn:\n`,
  );
  console.log(
    '| system | kubectl apply | apply → all Jobs created | apply → all installed | controller CPU | controller RSS idle → peak | Temporal server CPU | helm processes CPU | machine busy |',
  );
  console.log('|---|---|---|---|---|---|---|---|---|');
  for (const r of rows) {
    const cpu =
      r.cpuToJobs === undefined
        ? `${r.cpu.toFixed(1)} s (${r.cpuOf})`
        : `${r.cpu.toFixed(1)} s (${r.cpuToJobs.toFixed(1)} s to Jobs created)`;
    const rss = r.rssPeak === undefined ? '—' : `${String(mib(r.rssIdle ?? 0))} → ${String(mib(r.rssPeak))} MiB`;
    const temporal = `${r.temporalCpu.toFixed(1)} s${r.temporalUsed ? '' : ' (not used: idle)'}`;
    const helmCpu =
      r.helmCpu === undefined ? '—' : `${r.helmCpu.toFixed(1)} s (${(r.helmCpu / count).toFixed(2)} s per chart)`;
    const share = (100 * r.busy.seconds) / ((r.busy.wallMs / 1000) * cores);
    const busy = `${r.busy.seconds.toFixed(1)} core-s in ${seconds(r.busy.wallMs)} (${share.toFixed(0)} % of ${String(cores)} cores)`;
    console.log(
      `| ${r.system} | ${seconds(r.applyMs)} | ${seconds(r.jobsMs)} | ${r.notInstalled ?? seconds(r.installedMs)} | ${cpu} | ${rss} | ${temporal} | ${helmCpu} | ${busy} |`,
    );
  }
}

/** The second table's columns: every process of a system's window the bench can name. */
const cpuColumns = [
  'etcd',
  'kube-apiserver',
  'kube-controller-manager',
  'native node (own)',
  'Temporal',
  'controller',
  'helm processes',
] as const;

/** A row's CPU seconds in cpuColumns' order; undefined where the system has no such process (the floor's controller). */
const cpuParts = (r: Figures): (number | undefined)[] => [
  r.stack.etcd,
  r.stack['kube-apiserver'],
  r.stack['kube-controller-manager'],
  r.stack['native-node'],
  r.temporalCpu,
  r.cpuIsController ? r.cpu : undefined,
  r.helmCpu,
];
const cpuSum = (r: Figures): number => cpuParts(r).reduce<number>((sum, part) => sum + (part ?? 0), 0);

function printWhereCpuWent(rows: Figures[]): void {
  console.log("\nwhere the CPU went, in CPU seconds over each system's window (the same as the table above's):\n");
  console.log(`| system | ${cpuColumns.join(' | ')} | sum | machine busy |`);
  console.log(`|---|${cpuColumns.map(() => '---|').join('')}---|---|`);
  for (const r of rows) {
    const parts = cpuParts(r).map((part) => (part === undefined ? '—' : `${part.toFixed(1)} s`));
    const sum = cpuSum(r);
    const ofBusy = r.busy.seconds === 0 ? '' : ` (${((100 * sum) / r.busy.seconds).toFixed(0)} % of busy)`;
    console.log(
      `| ${r.system} | ${parts.join(' | ')} | ${sum.toFixed(1)} s${ofBusy} | ${r.busy.seconds.toFixed(1)} core-s |`,
    );
  }
}

/** helmflow's row divided by the charts it installed: what one chart costs each process. */
function printHelmflowPerChart(r: Figures): void {
  const perChart = (seconds: number) => `${(seconds / count).toFixed(3)} s`;
  const parts = cpuParts(r).flatMap((part, i) =>
    part === undefined ? [] : [`${cpuColumns[i] ?? ''} ${perChart(part)}`],
  );
  console.log(
    `\nhelmflow per chart (÷ ${String(count)}): ${parts.join(', ')}; sum ${perChart(cpuSum(r))}; machine busy ${perChart(r.busy.seconds)}`,
  );
}

/** How many rows of requests per chart the third table shows: the most frequent of any system. */
const REQUEST_ROWS = 20;

function printRequestsPerChart(rows: Figures[]): void {
  const kinds = new Set(rows.flatMap((r) => [...r.requests.keys()]));
  const most = (kind: string) => Math.max(...rows.map((r) => r.requests.get(kind) ?? 0));
  const shown = [...kinds].sort((a, b) => most(b) - most(a)).slice(0, REQUEST_ROWS);
  const perChart = (n: number) => (n === 0 ? '—' : (n / count).toFixed(2));
  console.log(
    `\nrequests the apiserver served per chart (÷ ${String(count)}) over each system's window, from every client` +
      ` (the bench's own watches and its GET of a namespace every 2 s included), the ${String(shown.length)} most frequent:\n`,
  );
  console.log(`| verb resource | ${rows.map((r) => r.system).join(' | ')} |`);
  console.log(`|---|${rows.map(() => '---|').join('')}`);
  const total = (r: Figures) => [...r.requests.values()].reduce((sum, n) => sum + n, 0);
  console.log(`| all requests | ${rows.map((r) => perChart(total(r))).join(' | ')} |`);
  for (const kind of shown)
    console.log(`| ${kind} | ${rows.map((r) => perChart(r.requests.get(kind) ?? 0)).join(' | ')} |`);
}

await stopStack(layout, log);
rmSync(layout.stateDir, { recursive: true, force: true });
await startStack(layout, log);
const load = () =>
  loadavg()
    .map((n) => n.toFixed(1))
    .join(' ');
console.log(`side-by-side --charts ${String(count)}, ${new Date().toISOString()}; load average at start ${load()}`);
try {
  const floorFigures = await floor();
  const { figures: hf, history } = await helmflow();
  const k3sFigures = await k3s();
  printTable([floorFigures, hf, k3sFigures]);
  console.log(
    "\nk3s's install Jobs run rancher/klipper-helm's entrypoint; the native node runs only helmflow's helm Job pods" +
      ' (host processes, no images), so k3s is measured to its Jobs created. Controller CPU and Temporal CPU are' +
      " from the apply to all installed (k3s: to all Jobs created); the floor has no controller, its CPU is helm's own." +
      " helmflow's helm processes are the native node's ended children (each install Job of these chartContent charts" +
      ' runs helm for pre-flight and for the upgrade; the worker reads their crds/ from the archive); machine busy' +
      " counts every process, the stack's included.",
  );
  printWhereCpuWent([floorFigures, hf, k3sFigures]);
  printHelmflowPerChart(hf);
  printRequestsPerChart([floorFigures, hf, k3sFigures]);
  console.log(
    "\nThe native node's own CPU excludes its ended children (the helm column). Machine busy less the sum is what" +
      ' no column names: this bench process (its watches, its kubectl apply) and anything else the machine ran.',
  );
  const median = history.sampled[Math.floor(history.sampled.length / 2)];
  console.log(`\nhelmflow / floor, all installed:        ${ratio(hf.installedMs, floorFigures.installedMs)}`);
  console.log(`helmflow / k3s, all Jobs created:        ${ratio(hf.jobsMs, k3sFigures.jobsMs)}`);
  console.log(`helmflow / k3s, CPU to Jobs created:     ${ratio(hf.cpuToJobs, k3sFigures.cpu)}`);
  console.log(`helmflow / k3s, peak RSS:                ${ratio(hf.rssPeak, k3sFigures.rssPeak)}`);
  console.log(
    `helmflow RSS once all were installed:    ${String(mib(hf.rssInstalled ?? 0))} MiB (the most of 5 s of samples)`,
  );
  console.log(
    `helmflow history events of one install:  ${String(history.events)} (${history.lastInstalled}, installed last, read after the run): ${history.types}`,
  );
  console.log(
    `history events, ${String(history.sampled.length)} charts spread over the N: min ${String(history.sampled[0])}, median ${String(median)}, max ${String(history.sampled.at(-1))}`,
  );
  console.log(
    `signals taken and steps scheduled, over all ${String(count)} charts: ${[...history.named].map(([name, n]) => `${name} ${String(n)}`).join(', ')}`,
  );
  console.log(
    `steps that ran more than once, over all ${String(count)} charts:${history.retried.size === 0 ? ' none' : ''}`,
  );
  for (const [step, charts] of history.retried)
    console.log(
      `  ${step}: ${String(charts.length)} (${charts.slice(0, 5).join(', ')}${charts.length > 5 ? ', …' : ''})`,
    );
  const said = history.retriedSaid ?? [];
  console.log(`what helmflow's log said of each attempt before a step's last:${said.length === 0 ? ' nothing' : ''}`);
  for (const line of said) console.log(`  ${line}`);
  console.log(
    "activity attempts, as the histories started them and as the worker's core received them, and the core's failed calls:",
  );
  for (const line of history.receivedSaid ?? []) console.log(`  ${line}`);
  console.log(`the ${String(history.tail.length)} charts installed last, and their steps that ran more than once:`);
  for (const { name, seconds, retried } of history.tail)
    console.log(
      `  ${name} installed at ${seconds.toFixed(1)} s: ${retried.length === 0 ? 'none' : retried.join('; ')}`,
    );
  console.log(`load average at the end (2 cores, shared): ${load()}`);
} finally {
  await stopStack(layout, log);
  rmSync(layout.stateDir, { recursive: true, force: true });
}
