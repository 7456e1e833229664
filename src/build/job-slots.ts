/** The --max-running-jobs default, one constant for the settings and the activities that count the slots. */
export const DEFAULT_MAX_RUNNING_JOBS = 32;

/**
 * awaitJobSlot gives up after this and the workflow asks again (prepareInstall, then another wait). Long, because
 * each round costs a prepareInstall and history events, and its heartbeat, not this, catches a wait that is lost.
 * One home for the activity's loop and the workflow's start-to-close timeout above it.
 */
export const SLOT_WAIT_MS = 25 * 60_000;

/**
 * How long a slot wait may go without a heartbeat before Temporal starts it again: what a wait lost on its way to a
 * worker costs its chart (about one step in a hundred was lost so at 1,000 charts; bench/README.md). Near the front
 * of the line a chart would soon have had its slot, so its wait gets the short timeout. Further back a loss costs
 * little, since the chart keeps its place and would have waited anyway, and the long timeout keeps heartbeats few
 * (the SDK sends them at most every 0.8 × the timeout): heartbeats every 8 s from a thousand waiting charts
 * overwhelmed the dev server's SQLite. A wait recorded before this was decided (no `nearFront`) keeps the long one.
 * Pure: table-tested.
 */
export function slotWaitHeartbeatTimeout(nearFront: boolean | undefined): '20 seconds' | '1 minute' {
  return nearFront === true ? '20 seconds' : '1 minute';
}

/** Near the front of the line: fewer waiters ahead than the cap has slots, so one round of Jobs ending lets it in. */
export function nearFrontOfLine(waitersAhead: number, max: number): boolean {
  return waitersAhead < max;
}

/** How long a chart waiting for a Job slot waits between two looks, unless it is far back in the line. */
export const LOOK_MS = 1_000;
/**
 * How long a chart far back in the line waits between two looks (farBackFrom). A thousand activities looking once a
 * second, heartbeats paced, took 8.0–9.2 s of the worker's CPU a minute (bench/heartbeat-pace.ts); far back, a
 * chart makes a third as many looks. It stays under WAITER_LOOKED_MS (activities/job-slot-ledger.ts), so such a chart
 * never stops counting as looking and holding its place.
 */
export const FAR_LOOK_MS = 3_000;
/** Far back, with any cap: at least this many still looking ahead, so that many Jobs must end before its turn. */
export const FAR_BACK_LEAST = 8;

/**
 * How many waiters still looking ahead of a chart put it far back: twice the cap (two rounds of Jobs must end
 * before its turn, which takes longer than FAR_LOOK_MS), and at least FAR_BACK_LEAST for a small cap. So a
 * chart that looks less often cannot be first in line before its next look, and no slot waits for it.
 */
export function farBackFrom(max: number): number {
  return Math.max(2 * max, FAR_BACK_LEAST);
}

/** How long a waiting chart waits before its next look, by how many still look ahead of it. Pure. */
export function nextLookMs(waitersAhead: number, max: number): number {
  return waitersAhead >= farBackFrom(max) ? FAR_LOOK_MS : LOOK_MS;
}

/** helmflow's install and crds Jobs as the worker's Job watch shows them. */
export interface WatchedJobs {
  /** namespace/name of each one still running. */
  running: readonly string[];
  /** The uid of each one, running, ended or being deleted. */
  seen: ReadonlySet<string>;
}

/** A slot this worker holds for a chart's Job: until when, and the uid of the Job once it is created in it. */
export interface Reservation {
  until: number;
  jobUid?: string;
}

/**
 * Whether a reservation still takes a slot: until it runs out, and once its Job is created, only until the watch
 * shows that Job. From then on the watch counts the Job while it runs, so its slot frees the moment it ends: a Job
 * that ended within the hold (a tiny chart takes about 2 s) no longer keeps its slot idle for the rest of it.
 * Pure: table-tested.
 */
export function reservationHolds(reservation: Reservation, now: number, seen: ReadonlySet<string>): boolean {
  if (now > reservation.until) return false;
  return reservation.jobUid === undefined || !seen.has(reservation.jobUid);
}

export interface SlotView {
  /** namespace/name of each running install or crds Job the watch shows. */
  running: readonly string[];
  /** namespace/name of each Job this worker created recently, or a slot it granted, seen by the watch or not. */
  reserved: readonly string[];
  /**
   * The charts waiting for a slot in this worker and still looking (namespace/name of each one's Job), in the order
   * they began; only those up to this chart, or the first --max-running-jobs, can matter.
   */
  waiting: readonly string[];
  /** namespace/name of the Job this chart is about to create. */
  own: string;
  max: number;
}

/**
 * The waiters a slot goes to before this chart: those that began waiting before it, or all of them for a chart that
 * is not waiting. None for a chart that holds a slot or whose Job runs already.
 */
export function waitersAhead(view: SlotView): number {
  const taken = new Set([...view.running, ...view.reserved]);
  if (taken.has(view.own)) return 0;
  let ahead = 0;
  for (const key of view.waiting) {
    if (key === view.own) break;
    if (!taken.has(key)) ahead += 1;
  }
  return ahead;
}

/**
 * Free for this chart, so one more install Job may be created: helmflow's install (and crds) Jobs still running,
 * counted from the worker's Job watch, plus those this worker has just created and its watch has not shown yet, and
 * the waiters ahead of it, stay below the --max-running-jobs setting. The chart's own Job never counts against
 * itself (a retried step finds it running). Slots go in the order charts began waiting: a chart that has waited
 * longest gets the next, and a chart that has not waited yet queues behind all that have, so under a flood a
 * chart's wait is set by the charts ahead of it, not by which look happens to come first after a Job ends.
 * Pure: table-tested.
 */
export function slotFree(view: SlotView): boolean {
  const taken = new Set([...view.running, ...view.reserved]);
  taken.delete(view.own);
  return taken.size + waitersAhead(view) < view.max;
}
