import type { V1Job } from '@kubernetes/client-node';
import { Context } from '@temporalio/activity';
import { JobCreatedCondition } from '../src/api/reasons.js';
import type { ApiGroup, HelmChart } from '../src/api/index.js';
import {
  LOOK_MS,
  SLOT_WAIT_MS,
  farBackFrom,
  nearFrontOfLine,
  nextLookMs,
  reservationHolds,
  slotFree,
  waitersAhead,
  type Reservation,
  type WatchedJobs,
} from '../src/build/job-slots.js';
import { actionLabelKey } from '../src/build/labels.js';
import type { ActivityDeps } from './deps.js';
import { pacedHeartbeat } from './heartbeat-pace.js';
import { outcomeOf } from './jobs.js';
import { nextLook } from './next-look.js';
import { setStatus } from './status.js';
import { stillWanted } from './still-wanted.js';
import type { ChartTarget } from './types.js';

/**
 * How long a Job this worker is about to create is counted, at most, before its watch shows it (the watch usually
 * takes well under 1 s); once the watch shows it, the watch alone counts it (reservationHolds).
 */
const RESERVED_MS = 10_000;
/**
 * How long a slot awaitJobSlot took is kept for the chart's next step (prepareInstall, which creates the Job). A
 * workflow task and a step lie between the two; under load at 1,000 charts that took more than RESERVED_MS, the
 * slot went to another chart, and the chart waited again.
 */
export const GRANT_MS = 60_000;
/**
 * How long prepareInstall holds the slot it takes before applying the chart's identity and inputs; it takes it
 * again, for RESERVED_MS, right before it creates the Job. A prepareInstall that fails in between keeps it no longer.
 */
export const PREPARE_HOLD_MS = 30_000;
/** How long one count of the running Jobs serves every chart that asks: a thousand waiters share one count. */
const RECOUNT_MS = 250;
/**
 * A waiter that has not looked for this long no longer holds up those behind it (its wait ended: the chart was
 * paused, deleted or changed, or the wait was lost on its way to a worker).
 */
export const WAITER_LOOKED_MS = 5 * LOOK_MS;
/**
 * How long a waiter that stopped looking keeps its place, for its next round, its retry or a new spec's wait. A
 * wait lost on its way to a worker comes back only after its heartbeat timeout (slotWaitHeartbeatTimeout) and the
 * retry's backoff: at 300 charts one came back 63 s after its chart's last look (bench/many-charts.ts prints the
 * slowest chart's steps), and queued behind every chart that had come since. Five minutes covers a few such losses
 * in a row.
 */
export const WAITER_KEPT_MS = 5 * 60_000;

/**
 * The Jobs this worker created recently, counted until its watch shows them, so a burst cannot overshoot the cap;
 * and the charts waiting for a slot, in the order they began, so the slots go to them in that order (slotFree).
 */
export class JobSlots {
  /** namespace/name of a Job → until when it is counted, and the Job created in it. */
  private readonly reserved = new Map<string, Reservation>();
  /**
   * namespace/name of a waiting chart's Job → when it last looked. A Map keeps the order keys were first set in, so
   * this is the line: a waiter that looks again keeps its place.
   */
  private readonly waiting = new Map<string, number>();
  /** namespace/name of a chart's Job → how many slot waits for it run in this worker (a new spec's, a cancelled one's). */
  private readonly waits = new Map<string, number>();
  private counted: { at: number; jobs: WatchedJobs } | undefined;
  private swept = -Infinity;

  constructor(readonly max: number) {}

  /** The watched Jobs, counted (`count`) at most once per RECOUNT_MS; a Job this worker creates is reserved at once. */
  watched(count: () => WatchedJobs, now: number): WatchedJobs {
    if (this.counted === undefined || now - this.counted.at >= RECOUNT_MS) this.counted = { at: now, jobs: count() };
    return this.counted.jobs;
  }

  /**
   * Takes a slot for `own` when one is free for it now, and keeps it `holdMs` from now (synchronous: no two callers
   * in this worker take the last one). When the slot is not yet its, the chart joins the line, or keeps its place in
   * it: its place is where it first found no slot (in prepareInstall), so a wait that is lost on its way to a worker
   * and comes back with its retry keeps it. prepareInstall's take shortens awaitJobSlot's hold: once the Job
   * exists, the watch counts it, and its slot frees when it ends.
   */
  take(jobs: WatchedJobs, own: string, now: number, holdMs = RESERVED_MS): boolean {
    for (const [key, held] of this.reserved) if (!reservationHolds(held, now, jobs.seen)) this.reserved.delete(key);
    this.forgetWaiters(now);
    const { running } = jobs;
    this.waiting.set(own, now);
    const view = { running, reserved: [...this.reserved.keys()], own, max: this.max };
    // The line is read only when a slot is free at all: under a flood every slot is taken at nearly every look.
    if (!slotFree({ ...view, waiting: [] })) return false;
    if (!slotFree({ ...view, waiting: this.line(now, own, view.max + running.length + view.reserved.length) })) {
      return false;
    }
    this.reserved.set(own, { until: now + holdMs });
    this.waiting.delete(own);
    return true;
  }

  /**
   * The Job `jobUid` was created (or found) in the slot `own` holds: the slot is held only until the watch shows
   * that Job, which then counts it while it runs.
   */
  created(own: string, jobUid: string): void {
    const held = this.reserved.get(own);
    if (held !== undefined) this.reserved.set(own, { ...held, jobUid });
  }

  /** Counts a slot wait for `own` as running in this worker until the function it returns is called. */
  enter(own: string): () => void {
    this.waits.set(own, (this.waits.get(own) ?? 0) + 1);
    return () => {
      const left = (this.waits.get(own) ?? 1) - 1;
      if (left > 0) this.waits.set(own, left);
      else this.waits.delete(own);
    };
  }

  /**
   * Gives back the slot a wait for `own` took when the wait was no longer wanted, so the next in line takes it at its
   * next look. Kept when another wait for the same Job runs here (the chart's new spec waits again; the cancelled
   * wait had its place in line): that one finds the slot its own at its next look.
   */
  giveBack(own: string): void {
    if ((this.waits.get(own) ?? 0) > 1) return;
    this.reserved.delete(own);
  }

  /**
   * The waiters still looking that are ahead of `own` in line, counted up to `upTo` (the cap unless said), so
   * reading it costs at most that many steps: by prepareInstall, and at each look of a wait.
   */
  waitersAhead(own: string, now: number, upTo = this.max): number {
    const waiting = this.line(now, own, upTo);
    return waitersAhead({ running: [], reserved: [], waiting, own, max: this.max });
  }

  /** Drops the waiters that have not looked for WAITER_KEPT_MS, at most once a second. */
  private forgetWaiters(now: number): void {
    if (now - this.swept < LOOK_MS) return;
    this.swept = now;
    for (const [key, looked] of this.waiting) if (now - looked > WAITER_KEPT_MS) this.waiting.delete(key);
  }

  /**
   * The waiters still looking, in the order they began, up to `own` or `most` others: a thousand waiters each
   * reading the whole line at every look would be CPU spent on nothing.
   */
  private line(now: number, own: string, most: number): string[] {
    const looking: string[] = [];
    for (const [key, looked] of this.waiting) {
      if (key === own) return [...looking, key];
      if (now - looked <= WAITER_LOOKED_MS) looking.push(key);
      if (looking.length >= most) break;
    }
    return looking;
  }
}

/** helmflow's install and crds Jobs in the worker's Job watch: those still running, and the uid of each. */
function watchedInstallJobs(jobs: readonly V1Job[], group: ApiGroup): WatchedJobs {
  const action = actionLabelKey(group);
  const install = jobs.filter((job) => ['install', 'crds'].includes(job.metadata?.labels?.[action] ?? ''));
  return {
    running: install
      .filter((job) => job.metadata?.deletionTimestamp === undefined && outcomeOf(job) === undefined)
      .map((job) => `${job.metadata?.namespace ?? ''}/${job.metadata?.name ?? ''}`),
    seen: new Set(install.map((job) => job.metadata?.uid ?? '')),
  };
}

/**
 * Takes a slot for the chart's Job `jobName` if fewer than --max-running-jobs of helmflow's install Jobs run and no
 * chart that began waiting earlier is still in line for it, and keeps it `holdMs`; if not, the chart is in line.
 */
export async function takeJobSlot(deps: ActivityDeps, target: ChartTarget, jobName: string, holdMs?: number) {
  await deps.jobs.start();
  const now = Date.now();
  const jobs = deps.slots.watched(() => watchedInstallJobs(deps.jobs.list(), deps.group), now);
  const taken = deps.slots.take(jobs, slotKey(target, jobName), now, holdMs);
  return { taken, running: jobs.running.length };
}

/** The chart's Job `jobName` now exists as `jobUid`: its slot is held until the watch shows it (JobSlots.created). */
export function jobCreatedInSlot(deps: ActivityDeps, target: ChartTarget, jobName: string, jobUid: string): void {
  deps.slots.created(slotKey(target, jobName), jobUid);
}

/** Whether the chart, in line for a slot for `jobName`, is near its front (nearFrontOfLine). */
export function nearFront(deps: ActivityDeps, target: ChartTarget, jobName: string): boolean {
  return nearFrontOfLine(deps.slots.waitersAhead(slotKey(target, jobName), Date.now()), deps.slots.max);
}

function slotKey(target: ChartTarget, jobName: string): string {
  return `${target.ref.namespace}/${jobName}`;
}

/** JobCreated=False/WaitingForJobSlot, written once: not again while the chart already says it. */
export async function reportWaitingForSlot(
  deps: ActivityDeps,
  target: ChartTarget,
  chart: HelmChart,
  jobName: string,
  running: number,
): Promise<void> {
  const current = chart.status?.conditions?.find((c) => c.type === JobCreatedCondition.type);
  if (current?.reason === JobCreatedCondition.waiting) return;
  const message = `${running} of helmflow's install Jobs are running, the most --max-running-jobs (${deps.slots.max}) allows; ${jobName} is created when one ends`;
  const condition = {
    type: JobCreatedCondition.type,
    status: 'False' as const,
    reason: JobCreatedCondition.waiting,
    message,
  };
  await setStatus(deps, target, { conditions: [condition] }, chart);
}

/**
 * Waits, at most SLOT_WAIT_MS, until a slot for the chart's Job is free and its turn has come (the charts waiting in
 * this worker get slots in the order they began), and takes it for GRANT_MS (prepareInstall then finds it its own).
 * It creates nothing, so a pause, delete or spec change need not wait for it (the workflow moves on; this ends on
 * its own). It looks once a second, every 3 s while far back in the line (nextLookMs), and heartbeats at its
 * first look and then every HEARTBEAT_PACE_MS of looks; the SDK sends at most one heartbeat per 0.8 × the
 * workflow's heartbeat timeout (slotWaitHeartbeatTimeout: one minute, about one write every 48 s per waiting chart;
 * 20 s near the front of the line), so a wait lost with its worker, or never delivered to one, is taken up again
 * within that timeout instead of at its start-to-close timeout. So the SDK may not have heard of a cancel when the
 * turn comes: the wait asks Temporal then (stillWanted), and a wait its workflow no longer wants gives the slot back
 * to the next in line instead of holding it GRANT_MS for nothing.
 * Returns whether the slot was taken; the workflow asks again if not.
 */
export async function awaitJobSlot(deps: ActivityDeps, target: ChartTarget, jobName: string): Promise<boolean> {
  const deadline = Date.now() + SLOT_WAIT_MS;
  const context = Context.current();
  const heartbeat = pacedHeartbeat(context);
  const own = slotKey(target, jobName);
  const leave = deps.slots.enter(own);
  try {
    for (let looks = 1; ; looks += 1) {
      if ((await takeJobSlot(deps, target, jobName, GRANT_MS)).taken) {
        if (await stillWanted(context, deps.log)) return true;
        deps.slots.giveBack(own);
        deps.log.info({ job: own }, 'a Job slot wait its workflow no longer wants gave its slot back');
        return false;
      }
      if (Date.now() >= deadline) return false;
      // The looks so far: the Temporal UI shows them on the pending step, and the attempt after a timed-out wait
      // is handed them, so its log line (activities/retried.ts) tells a wait that never ran from one that did.
      heartbeat({ looks });
      // Ends at once when the worker shuts down or the wait is cancelled.
      const ahead = deps.slots.waitersAhead(own, Date.now(), farBackFrom(deps.slots.max));
      await nextLook(context, nextLookMs(ahead, deps.slots.max));
    }
  } finally {
    leave();
  }
}
