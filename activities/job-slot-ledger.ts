// The worker's ledger of Job slots: the Jobs it just created and the charts in line, in memory, with no I/O. Apart from
// the slot activities (job-slots.ts), so ActivityDeps can hold one without its module importing the activities.
import {
  LOOK_MS,
  reservationHolds,
  slotFree,
  waitersAhead,
  type Reservation,
  type WatchedJobs,
} from '../src/build/job-slots.js';

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
