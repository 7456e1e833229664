/**
 * A keyed work queue: a key queued many times is processed once, a key being processed is queued again rather
 * than run twice at once, and a failed key is retried with a per-key backoff (so a Temporal outage delays the
 * backlog, and delivers it once Temporal is back, without losing any chart).
 */
export class WorkQueue {
  private readonly pending = new Set<string>();
  private readonly running = new Set<string>();
  private readonly dirty = new Set<string>();
  private readonly failures = new Map<string, number>();
  private readonly timers = new Map<string, NodeJS.Timeout>();
  private active = 0;
  private closed = false;

  constructor(
    private readonly handle: (key: string) => Promise<void>,
    private readonly options: {
      concurrency: number;
      baseDelayMs: number;
      maxDelayMs: number;
      onError?: (key: string, err: unknown) => void;
    },
  ) {}

  add(key: string): void {
    if (this.closed) return;
    if (this.running.has(key)) {
      this.dirty.add(key);
      return;
    }
    this.pending.add(key);
    this.pump();
  }

  get depth(): number {
    return this.pending.size + this.timers.size;
  }

  close(): void {
    this.closed = true;
    for (const timer of this.timers.values()) clearTimeout(timer);
    this.timers.clear();
    this.pending.clear();
  }

  private pump(): void {
    while (!this.closed && this.active < this.options.concurrency && this.pending.size > 0) {
      const [key] = this.pending;
      if (key === undefined) return;
      this.pending.delete(key);
      this.active += 1;
      this.running.add(key);
      void this.run(key);
    }
  }

  private async run(key: string): Promise<void> {
    try {
      await this.handle(key);
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
          this.add(key);
        }, delay),
      );
    } finally {
      this.active -= 1;
      this.running.delete(key);
      if (this.dirty.delete(key)) this.add(key);
      this.pump();
    }
  }
}
