import { waitFor } from '../../../../src/lib/wait.js';
import { buildChart, releaseValues, type TestChart } from '../charts.js';
import { installCrds } from '../crds.js';
import { helmflowSettings } from '../helmflow.js';
import { apply, helmChart, readHelmChart } from '../helmcharts.js';
import { freshNamespace, kubectl } from '../kube.js';
import { checkCleanUp, type CleanUp } from './clean-up.js';
import {
  attemptRegressions,
  duplicateInstallJobs,
  installedWithoutJob,
  repeatedDeleteJobs,
  stallAfter,
  type DuplicateJobs,
} from './invariants.js';
import { MomentFinder } from './moments.js';
import { RunObserver } from './observer.js';
import { chartVariants, makePlan, type KillKind, type Operation, type PlannedKill } from './plan.js';
import { ChaosProcesses } from './processes.js';

export interface ChaosOptions {
  operations: number;
  seed: number;
  /** Progress lines as the run goes. */
  log: (line: string) => void;
  /** How long every waiting chart may take to show progress after a kill; default 240 s. */
  progressDeadlineMs?: number;
  /** How long the charts may take to converge after the last operation; default 300 s. */
  convergeDeadlineMs?: number;
}

export interface KillRecord {
  kind: KillKind;
  afterOp: number;
  moment: string;
  /** Charts not converged when the kill landed. */
  waiting: number;
  /** From the kill to every waiting chart showing progress; undefined when none was waiting. */
  stallMs: number | undefined;
  /** Waiting charts that showed no progress within the deadline. */
  stalled: string[];
}

export interface ChaosReport {
  seed: number;
  operations: Record<Operation['kind'], number>;
  kills: KillRecord[];
  installJobs: number;
  /** Charts that did not reach their last desired state (Installed, or gone) within the deadline. */
  unconverged: string[];
  convergeMs: number;
  /** Installed charts whose release does not hold the last values applied. */
  wrongValues: string[];
  duplicateInstallJobs: DuplicateJobs[];
  attemptRegressions: string[];
  repeatedDeleteJobs: DuplicateJobs[];
  installedWithoutJob: string[];
  cleanUp: CleanUp;
  /** Operations that waited for in-flight charts longer than the deadline. */
  pacingTimeouts: number;
  watchGaps: number;
  watchFailures: string[];
  durationMs: number;
}

interface Desired {
  live: boolean;
  uid: string;
  generation: number;
  greeting: string;
}

const group = 'helm.k3sm.io';

/**
 * One chaos run (see plan.ts): the planned installs, upgrades and deletes on charts built here, with the planned
 * kills landing between them; then every chart converged, checked, deleted, and the leftovers counted.
 */
export async function runChaos(options: ChaosOptions): Promise<ChaosReport> {
  const started = Date.now();
  const plan = makePlan(options.seed, options.operations);
  const { log } = options;
  log(`chaos: seed ${plan.seed}, ${plan.operations.length} operations, ${plan.kills.length} kills`);
  await installCrds(group);
  const namespace = await freshNamespace(`chaos-${plan.seed}`);
  const charts: TestChart[] = Array.from({ length: chartVariants }, (_, i) =>
    buildChart({ name: 'chaos', version: `0.${i + 1}.0`, values: { greeting: 'chart default' } }),
  );
  const settings = helmflowSettings();
  const observer = await RunObserver.start(namespace);
  const processes = new ChaosProcesses(settings);
  const desired = new Map<string, Desired>();
  const kills: KillRecord[] = [];
  let pacingTimeouts = 0;

  const converged = (name: string): boolean => {
    const want = desired.get(name);
    const chart = observer.chart(name);
    if (want === undefined || !want.live) return chart === undefined;
    return (
      chart !== undefined &&
      chart.metadata.uid === want.uid &&
      chart.status?.phase === 'Installed' &&
      (chart.status.observedGeneration ?? 0) >= want.generation
    );
  };
  const notConverged = () => [...desired.keys()].filter((name) => !converged(name));

  const perform = async (op: Operation): Promise<void> => {
    if (op.kind === 'delete') {
      const deleted = kubectl(['delete', `helmcharts.${group}`, op.chart, '-n', namespace, '--wait=false']);
      if (deleted.status !== 0) throw new Error(`kubectl delete failed: ${deleted.stderr}`);
      desired.set(op.chart, { ...(desired.get(op.chart) as Desired), live: false });
      return;
    }
    const chart = charts[op.variant] as TestChart;
    apply(
      helmChart(namespace, op.chart, { chartContent: chart.chartContent, valuesContent: `greeting: ${op.greeting}\n` }),
    );
    const read = await readHelmChart(namespace, op.chart);
    if (read === undefined) throw new Error(`HelmChart ${op.chart} vanished right after it was applied`);
    desired.set(op.chart, {
      live: true,
      uid: read.metadata.uid,
      generation: read.metadata.generation ?? 1,
      greeting: op.greeting,
    });
  };

  const crash = async (kill: PlannedKill, opAt: number, moments: MomentFinder): Promise<void> => {
    const moment = await moments.await(kill.moment, opAt, notConverged);
    const killedAt = Date.now();
    const waiting = notConverged();
    await processes.crash(kill.kind);
    const deadline = options.progressDeadlineMs ?? 240_000;
    await waitFor(
      'every waiting chart to show progress',
      () => stallAfter(killedAt, waiting, (n, t) => observer.progressSince(n, t)).pending.length === 0,
      { timeoutMs: deadline, intervalMs: 100 },
    ).catch(() => undefined);
    const { stallMs, pending } = stallAfter(killedAt, waiting, (n, t) => observer.progressSince(n, t));
    const record = {
      kind: kill.kind,
      afterOp: kill.afterOp,
      moment,
      waiting: waiting.length,
      stallMs,
      stalled: pending,
    };
    kills.push(record);
    log(`chaos: kill -9 ${kill.kind} ${moment}: ${waiting.length} waiting, progress after ${seconds(stallMs)}`);
  };

  try {
    await processes.start();
    const moments = await MomentFinder.connect(settings, observer);
    try {
      for (const [index, op] of plan.operations.entries()) {
        const cap = plan.inFlight[index] ?? 1;
        await waitFor(`at most ${cap} charts in flight`, () => notConverged().length <= cap, {
          timeoutMs: 240_000,
          intervalMs: 100,
        }).catch(() => (pacingTimeouts += 1));
        const opAt = Date.now();
        await perform(op);
        log(`chaos: op ${index} ${op.kind} ${op.chart}`);
        for (const kill of plan.kills.filter((k) => k.afterOp === index)) await crash(kill, opAt, moments);
      }
    } finally {
      await moments.close();
    }
    const convergeStart = Date.now();
    await waitFor('every chart to reach its last desired state', () => notConverged().length === 0, {
      timeoutMs: options.convergeDeadlineMs ?? 300_000,
      intervalMs: 200,
    }).catch(() => undefined);
    const convergeMs = Date.now() - convergeStart;
    const unconverged = notConverged().map((name) => describe(name, observer));
    const live = [...desired].filter(([, d]) => d.live);
    const wrongValues: string[] = [];
    for (const [name, want] of live) {
      const values = await releaseValues(namespace, name);
      if (values?.greeting !== want.greeting)
        wrongValues.push(`${name}: ${String(values?.greeting)} ≠ ${want.greeting}`);
    }
    const installed = live.map(([name, want]) => ({
      name,
      uid: want.uid,
      digest: observer.chart(name)?.status?.digest,
    }));
    const cleanUp = await checkCleanUp(namespace, group, options.convergeDeadlineMs ?? 300_000);
    const jobs = observer.jobs;
    const health = observer.health();
    return {
      seed: plan.seed,
      operations: countKinds(plan.operations),
      kills,
      installJobs: jobs.filter((j) => j.action === 'install').length,
      unconverged,
      convergeMs,
      wrongValues,
      duplicateInstallJobs: duplicateInstallJobs(jobs),
      attemptRegressions: attemptRegressions(jobs),
      repeatedDeleteJobs: repeatedDeleteJobs(jobs),
      installedWithoutJob: installedWithoutJob(jobs, installed),
      cleanUp,
      pacingTimeouts,
      watchGaps: health.gaps,
      watchFailures: health.failures,
      durationMs: Date.now() - started,
    };
  } finally {
    observer.stop();
    await processes.stop();
  }
}

function describe(name: string, observer: RunObserver): string {
  const chart = observer.chart(name);
  if (chart === undefined) return `${name}: gone`;
  const failed = chart.status?.conditions?.find((c) => c.type === 'Failed');
  const deleting = chart.metadata.deletionTimestamp === undefined ? '' : ', deleting';
  return `${name}: phase ${chart.status?.phase ?? '-'}${deleting}, generation ${String(chart.metadata.generation)} observed ${String(chart.status?.observedGeneration)}${failed ? `, Failed=${failed.status} ${failed.reason ?? ''}` : ''}`;
}

function countKinds(operations: readonly Operation[]): Record<Operation['kind'], number> {
  const counts = { install: 0, upgrade: 0, delete: 0 };
  for (const op of operations) counts[op.kind] += 1;
  return counts;
}

export function seconds(ms: number | undefined): string {
  return ms === undefined ? '-' : `${(ms / 1000).toFixed(1)} s`;
}
