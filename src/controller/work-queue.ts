import { higher, PendingKeys, type Urgency } from './pending-keys.js';

export interface WorkQueueOptions {
  concurrency: number;
  baseDelayMs: number;
  maxDelayMs: number;
  /**
   * Resync work is paced: at most this many resync keys at once, each started at least `resyncIntervalMs` after
   * the one before, so a sweep of every chart never floods Temporal's task queue ahead of a change.
   */
  resyncConcurrency?: number;
  resyncIntervalMs?: number;
  /**
   * A key whose work has not ended after this long gives its slot back and is retried as failed: a call that
   * never answers must not hold one of the few resync slots for ever (default 60 s).
   */
  stallMs?: number;
  onError?: (key: string, err: unknown) => void;
  /** The clock the pace is kept by (default Date.now); a test steers it. */
  now?: () => number;
}

/**
 * Whether a resync key may start `now`, and if only its pace holds it back, how long until it may. A key held
 * back by the resync slots gets no wait: the end of a running resync pumps the queue. Pure, and given one
 * reading of the clock: read twice, a pump could find the pace not yet reached and then nothing left to wait,
 * and set no timer, so the queued resync keys would wait for an unrelated event (test/unit/work-queue.test.ts).
 */
export function resyncPace(
  now: number,
  nextResyncAt: number,
  activeResyncs: number,
  resyncConcurrency: number,
): { allowed: boolean; waitMs?: number } {
  if (activeResyncs >= resyncConcurrency) return { allowed: false };
  if (now < nextResyncAt) return { allowed: false, waitMs: nextResyncAt - now };
  return { allowed: true };
}

/** The error a key's work is retried with when it did not end within `stallMs`. */
export class StalledWork extends Error {
  constructor(key: string, ms: number) {
    super(`the work on ${key} has not ended after ${String(ms)} ms; its slot is freed and it is retried`);
  }
}

/**
 * A keyed work queue: a key queued many times is processed once, a key being processed is queued again rather
 * than run twice at once, and a failed key is retried with a per-key backoff (so a Temporal outage delays the
 * backlog, and delivers it once Temporal is back, without losing any chart). Changes go before resync
 * (pending-keys.ts), and resync work is paced.
 */
export class WorkQueue {
  private readonly pending = new PendingKeys();
  private readonly running = new Map<string, Urgency>();
  private readonly dirty = new Map<string, Urgency>();
  private readonly failures = new Map<string, number>();
  private readonly timers = new Map<string, NodeJS.Timeout>();
  private active = 0;
  private activeResyncs = 0;
  private nextResyncAt = 0;
  private pacing: NodeJS.Timeout | undefined;
  private closed = false;

  constructor(
    private readonly handle: (key: string, urgency: Urgency) => Promise<void>,
    private readonly options: WorkQueueOptions,
  ) {}

  add(key: string, urgency: Urgency = 'change'): void {
    if (this.closed) return;
    if (this.running.has(key)) {
      this.dirty.set(key, higher(this.dirty.get(key), urgency));
      return;
    }
    this.pending.add(key, urgency);
    this.pump();
  }

  get depth(): number {
    return this.pending.size + this.timers.size;
  }

  /** Keys waiting for a slot, by urgency (not those running, nor those waiting out a retry's backoff). */
  get waiting(): { change: number; resync: number } {
    const change = this.pending.changeCount;
    return { change, resync: this.pending.size - change };
  }

  close(): void {
    this.closed = true;
    for (const timer of this.timers.values()) clearTimeout(timer);
    this.timers.clear();
    if (this.pacing) clearTimeout(this.pacing);
    this.pending.clear();
  }

  private pump(): void {
    const { concurrency, resyncConcurrency = concurrency, resyncIntervalMs = 0, now = Date.now } = this.options;
    // Set when resync keys wait for their pace only: then nothing else would pump the queue when it is reached.
    let waitMs: number | undefined;
    while (!this.closed && this.active < concurrency) {
      const at = now();
      const pace = resyncPace(at, this.nextResyncAt, this.activeResyncs, resyncConcurrency);
      const next = this.pending.take(pace.allowed);
      if (next === undefined) {
        waitMs = pace.waitMs;
        break;
      }
      const { key, urgency } = next;
      this.active += 1;
      if (urgency === 'resync') {
        this.activeResyncs += 1;
        this.nextResyncAt = at + resyncIntervalMs;
      }
      this.running.set(key, urgency);
      void this.run(key, urgency);
    }
    const resyncWaiting = this.pending.size > this.pending.changeCount;
    if (!this.closed && this.pacing === undefined && resyncWaiting && waitMs !== undefined) {
      this.pacing = setTimeout(() => {
        this.pacing = undefined;
        this.pump();
      }, waitMs);
    }
  }

  /**
   * The key's work, or a StalledWork once it has run for `stallMs`. The stalled call itself is left to end on its
   * own; its retry may overlap it, which a signal (idempotent, guarded by the workflow) tolerates.
   */
  private async bounded(key: string, urgency: Urgency): Promise<void> {
    const ms = this.options.stallMs ?? 60_000;
    let timer: NodeJS.Timeout | undefined;
    const stalled = new Promise<never>((_, reject) => {
      timer = setTimeout(() => {
        reject(new StalledWork(key, ms));
      }, ms);
    });
    try {
      await Promise.race([this.handle(key, urgency), stalled]);
    } finally {
      clearTimeout(timer);
    }
  }

  private async run(key: string, urgency: Urgency): Promise<void> {
    try {
      await this.bounded(key, urgency);
      this.failures.delete(key);
    } catch (err) {
      this.options.onError?.(key, err);
      const failures = (this.failures.get(key) ?? 0) + 1;
      this.failures.set(key, failures);
      const delay = Math.min(this.options.baseDelayMs * 2 ** (failures - 1), this.options.maxDelayMs);
      const existing = this.timers.get(key);
      if (existing) clearTimeout(existing);
      this.timers.set(
        key,
        setTimeout(() => {
          this.timers.delete(key);
          this.add(key, urgency);
        }, delay),
      );
    } finally {
      this.active -= 1;
      if (urgency === 'resync') this.activeResyncs -= 1;
      this.running.delete(key);
      const again = this.dirty.get(key);
      if (again !== undefined) {
        this.dirty.delete(key);
        this.add(key, again);
      }
      this.pump();
    }
  }
}
