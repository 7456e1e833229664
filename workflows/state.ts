import type { ChartRef, ChartStatus, DesiredState, Phase, RetryRequest, Tuning } from './contract.js';

/** Everything the workflow knows, carried whole across continue-as-new (so pending signals are never lost). */
export interface ChartState {
  ref: ChartRef;
  tuning: Tuning;
  uid: string | undefined;
  desired: DesiredState | undefined;
  /** The digest of the last install that succeeded. */
  installedDigest: string | undefined;
  phase: Phase;
  attempt: number;
  /** Consecutive failures of the current digest, for the reinstall backoff. */
  failures: number;
  jobName: string | undefined;
  lastFailure: { reason: string; digest: string } | undefined;
  /**
   * Set when a failure stops the reinstall loop. abort holds until the spec changes (a new generation);
   * retry and a refused spec hold until anything in the desired state changes (a new digest).
   */
  halted: { digest: string; generation: number; until: 'generation' | 'digest' } | undefined;
  paused: boolean;
  deleteRequested: boolean;
  retryRequest: RetryRequest | undefined;
  /** The token of the last retry accepted, so a repeated request is not a second retry. */
  lastRetryToken?: string;
  /** A chart recreated under the same name while the old one was being deleted: handled after the delete. */
  successor: DesiredState | undefined;
}

export function initialState(ref: ChartRef, tuning: Tuning): ChartState {
  return {
    ref,
    tuning,
    uid: undefined,
    desired: undefined,
    installedDigest: undefined,
    phase: 'Pending',
    attempt: 0,
    failures: 0,
    jobName: undefined,
    lastFailure: undefined,
    halted: undefined,
    paused: false,
    deleteRequested: false,
    retryRequest: undefined,
    successor: undefined,
  };
}

/** Whether an install should run now. Pure: the workflow's main loop waits on it. */
export function wantsInstall(s: ChartState): boolean {
  const d = s.desired;
  if (d === undefined || s.paused || s.deleteRequested) return false;
  if (s.halted !== undefined) {
    const same = s.halted.until === 'generation' ? d.generation === s.halted.generation : d.digest === s.halted.digest;
    if (same) return false;
  }
  return d.digest !== s.installedDigest;
}

/** The running attempt must stop: the chart is being deleted, its desired state moved on, or a retry was asked. */
export function supersedes(s: ChartState, digest: string): boolean {
  return s.deleteRequested || s.retryRequest !== undefined || (s.desired !== undefined && s.desired.digest !== digest);
}

export function statusOf(s: ChartState): ChartStatus {
  return {
    ref: s.ref,
    uid: s.uid,
    phase: s.phase,
    desiredDigest: s.desired?.digest,
    installedDigest: s.installedDigest,
    attempt: s.attempt,
    jobName: s.jobName,
    lastFailure: s.lastFailure,
  };
}
