/**
 * Why a chart is queued: a `change` someone made (a chart applied or edited, its config or a Secret changed, a
 * retry asked) or a `resync` (the controller's own sweep, or its initial list after a start). People first: every
 * change is served before any resync.
 */
export type Urgency = 'change' | 'resync';

/**
 * The keys waiting in the controller's work queue, each once, at its highest urgency. Pure: the queue's order
 * is decided here and table-tested (test/unit/pending-keys.test.ts).
 */
export class PendingKeys {
  private readonly changes = new Set<string>();
  private readonly resyncs = new Set<string>();

  /** Queues `key`; a change overtakes the same key's queued resync, a resync never demotes a queued change. */
  add(key: string, urgency: Urgency): void {
    if (urgency === 'change') {
      this.resyncs.delete(key);
      this.changes.add(key);
    } else if (!this.changes.has(key)) {
      this.resyncs.add(key);
    }
  }

  /**
   * The next key to serve and why, removed from the queue: the oldest change, else (when `resyncAllowed`) the
   * oldest resync. Undefined when nothing may be served now.
   */
  take(resyncAllowed: boolean): { key: string; urgency: Urgency } | undefined {
    for (const key of this.changes) {
      this.changes.delete(key);
      return { key, urgency: 'change' };
    }
    if (!resyncAllowed) return undefined;
    for (const key of this.resyncs) {
      this.resyncs.delete(key);
      return { key, urgency: 'resync' };
    }
    return undefined;
  }

  get size(): number {
    return this.changes.size + this.resyncs.size;
  }

  get changeCount(): number {
    return this.changes.size;
  }

  clear(): void {
    this.changes.clear();
    this.resyncs.clear();
  }
}

/** The higher of two urgencies. */
export const higher = (a: Urgency | undefined, b: Urgency): Urgency =>
  a === 'change' || b === 'change' ? 'change' : 'resync';
