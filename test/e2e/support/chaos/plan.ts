import { Prng } from '../prng.js';

/** What the chaos run kills with SIGKILL: helmflow's two roles and three processes of the embedded stack. */
export const killKinds = ['worker', 'controller', 'temporal', 'kube-apiserver', 'native-node'] as const;
export type KillKind = (typeof killKinds)[number];

/**
 * When, after its operation, a kill lands: at once; once an install Job of a chart in flight was created; or
 * once a chart's workflow has a Kubernetes-call activity (anything but the Job wait) started on a worker, the
 * moment a crashed worker leaves a call unreported (issue 8's two-minute stall).
 */
export const killMoments = ['at-once', 'job-created', 'call-in-flight'] as const;
export type KillMoment = (typeof killMoments)[number];

export type Operation =
  | { kind: 'install'; chart: string; variant: number; greeting: string }
  | { kind: 'upgrade'; chart: string; variant: number; greeting: string }
  | { kind: 'delete'; chart: string };

export interface PlannedKill {
  /** Index of the operation after which it lands. */
  afterOp: number;
  kind: KillKind;
  moment: KillMoment;
}

export interface Plan {
  seed: number;
  operations: Operation[];
  /** Before operation i, wait until at most inFlight[i] charts are not converged: how much overlaps. */
  inFlight: number[];
  kills: PlannedKill[];
}

/** How many chart variants (test charts of different versions) installs and upgrades choose from. */
export const chartVariants = 2;
const maxLiveCharts = 8;

function nextOperation(rng: Prng, live: string[], index: number, counter: { n: number }): Operation {
  const greeting = `op-${index}`;
  const roll = rng.next();
  if (live.length === 0 || (roll < 0.45 && live.length < maxLiveCharts)) {
    counter.n += 1;
    const chart = `c${counter.n}`;
    live.push(chart);
    return { kind: 'install', chart, variant: rng.int(0, chartVariants - 1), greeting };
  }
  const chart = rng.pick(live);
  if (roll < 0.8) return { kind: 'upgrade', chart, variant: rng.int(0, chartVariants - 1), greeting };
  live.splice(live.indexOf(chart), 1);
  return { kind: 'delete', chart };
}

/** Every kind at least once, then one kill per five operations of random kinds, at distinct random operations. */
function planKills(rng: Prng, operationCount: number): PlannedKill[] {
  const count = Math.max(killKinds.length, Math.round(operationCount / 5));
  const kinds = rng.shuffle([
    ...killKinds,
    ...Array.from({ length: count - killKinds.length }, () => rng.pick(killKinds)),
  ]);
  // Never after the first operation (nothing in flight yet); distinct operations while there are enough.
  const slots = rng.shuffle(Array.from({ length: Math.max(operationCount - 1, 1) }, (_, i) => i + 1));
  const kills = kinds.map((kind, i) => ({
    afterOp: Math.min(slots[i % slots.length] ?? 1, operationCount - 1),
    kind,
    moment: rng.pick(killMoments),
  }));
  // The first worker kill always lands on a call in flight: the stall issue 8 measures is there.
  const firstWorker = kills.find((k) => k.kind === 'worker');
  if (firstWorker !== undefined) firstWorker.moment = 'call-in-flight';
  return kills.sort((a, b) => a.afterOp - b.afterOp);
}

/** The whole run, decided by the seed before anything starts. Pure. */
export function makePlan(seed: number, operationCount: number): Plan {
  if (!Number.isInteger(operationCount) || operationCount < 2)
    throw new Error('a chaos run needs at least 2 operations');
  const rng = new Prng(seed);
  const live: string[] = [];
  const counter = { n: 0 };
  const operations = Array.from({ length: operationCount }, (_, i) => nextOperation(rng, live, i, counter));
  const inFlight = operations.map(() => rng.int(1, 4));
  return { seed, operations, inFlight, kills: planKills(rng, operationCount) };
}
