/**
 * Whether one more install Job may be created: helmflow's install (and crds) Jobs still running, counted from the
 * worker's Job watch, plus those this worker has just created and its watch has not shown yet, stay below the
 * --max-running-jobs setting. The chart's own Job never counts against itself (a retried step finds it running).
 * Slots go in the order charts began waiting: a chart that has waited longest gets the next, and a chart that has
 * not waited yet queues behind all that have, so under a flood a chart's wait is set by the charts ahead of it, not by
 * which look happens to come first after a Job ends.
 * Pure: table-tested.
 */
/** The --max-running-jobs default, one constant for the settings and the activities that count the slots. */
export const DEFAULT_MAX_RUNNING_JOBS = 32;

/**
 * awaitJobSlot gives up after this and the workflow asks again (prepareInstall, then another wait). Long, because
 * each round costs a prepareInstall and history events, and its heartbeat, not this, catches a wait that is lost.
 * One home for the activity's loop and the workflow's start-to-close timeout above it.
 */
export const SLOT_WAIT_MS = 25 * 60_000;

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

/** Free for this chart: the Jobs counted, and the waiters ahead of it, leave one of the cap's slots. */
export function slotFree(view: SlotView): boolean {
  const taken = new Set([...view.running, ...view.reserved]);
  taken.delete(view.own);
  return taken.size + waitersAhead(view) < view.max;
}
