/**
 * What the controller remembers of each chart's workflow, so a resync that finds nothing changed sends nothing:
 * the last signal the workflow accepted (its fingerprint) and the run that accepted it. Recorded only after a
 * signal succeeded; empty after a restart, so a restarted controller signals every chart once.
 */
export interface Delivered {
  /** The desired state (with retry token) or delete request sent, serialised. */
  fingerprint: string;
  /** The run the signal reached (signalWithStart's signaledRunId). */
  runId: string;
  /** When it was delivered (ms since the epoch): a listing older than this may not show the run yet. */
  at: number;
}

/**
 * Whether what the controller remembers of a chart still holds, given the chart workflows Temporal lists as
 * running (workflow id → run id) at `listedAt`. It holds while the run that took the last signal still runs. A
 * workflow no longer running (it completed, was terminated, or Temporal lost its data) or running under another
 * run (continued as new, or reset to an earlier point) may lack what was sent: the controller forgets, and
 * signals again. A delivery newer than the listing (visibility lags a moment) is trusted until the next sweep.
 * Pure: table-tested.
 */
export function stillDelivered(
  delivered: Delivered | undefined,
  listedRunId: string | undefined,
  listedAt: number,
  visibilityLagMs: number,
): boolean {
  if (delivered === undefined) return false;
  if (delivered.at > listedAt - visibilityLagMs) return true;
  return listedRunId === delivered.runId;
}
