/**
 * Whether one more install Job may be created: helmflow's install (and crds) Jobs still running, counted from the
 * worker's Job watch, plus those this worker has just created and its watch has not shown yet, stay below the
 * --max-running-jobs setting. The chart's own Job never counts against itself (a retried step finds it running).
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
  /** namespace/name of each Job this worker created recently, seen by the watch or not. */
  reserved: readonly string[];
  /** namespace/name of the Job this chart is about to create. */
  own: string;
  max: number;
}

export function slotFree(view: SlotView): boolean {
  const taken = new Set([...view.running, ...view.reserved]);
  taken.delete(view.own);
  return taken.size < view.max;
}
