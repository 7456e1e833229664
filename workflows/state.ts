import type { ChartRef, ChartStatus, DependencyHold, DesiredState, Phase, RetryRequest, Tuning } from './contract.js';

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
  /** The highest controller leadership term a desired state came with (absent: none carried one). */
  term?: number;
  /** The delete asked to leave the release installed (an unmanaged chart): no helm uninstall. */
  keepRelease?: boolean;
  /** The controller saw the stored release differ from the chart's status: it is read again when idle. */
  releaseStale?: boolean;
  /** Whether the chart's status says it is suspended (so a change of the annotation is reported once). */
  suspendReported?: boolean;
  /** What the chart's status last said holds it back for its dependencies (absent: nothing, or never said). */
  dependenciesReported?: DependencyHold;
  /**
   * Whether the chart printed any CRDs the last time a Job read its crds/ (absent: never read by this workflow).
   * An upgrade of a chart that has them compares them before its install Job (src/build/crds-job.ts).
   */
  chartCrds?: boolean;
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
export function wantsInstall(state: ChartState): boolean {
  const desired = state.desired;
  if (
    desired === undefined ||
    state.paused ||
    state.deleteRequested ||
    desired.suspended === true ||
    desired.dependencies !== undefined
  )
    return false;
  if (state.halted !== undefined) {
    const same =
      state.halted.until === 'generation'
        ? desired.generation === state.halted.generation
        : desired.digest === state.halted.digest;
    if (same) return false;
  }
  return desired.digest !== state.installedDigest;
}

/** The running attempt must stop: the chart is being deleted, its desired state moved on, or a retry was asked. */
export function supersedes(state: ChartState, digest: string): boolean {
  return (
    state.deleteRequested ||
    state.retryRequest !== undefined ||
    (state.desired !== undefined && state.desired.digest !== digest)
  );
}

/**
 * Whether an incoming desired state is older than the one held, and must be ignored: a lower generation of the
 * same chart, or (at the same generation, or for another uid) one sent under a lower leadership term — a stale
 * leader resyncing what it saw before another replica took over. Pure: table-tested.
 */
export function isStaleDesired(held: Pick<ChartState, 'desired' | 'term'>, incoming: DesiredState): boolean {
  const lowerTerm = incoming.term !== undefined && held.term !== undefined && incoming.term < held.term;
  const current = held.desired;
  if (current === undefined || incoming.uid !== current.uid) return lowerTerm;
  if (incoming.generation !== current.generation) return incoming.generation < current.generation;
  return lowerTerm;
}

/** The highest term seen so far, once `incoming` is accepted. */
export function termAfter(held: number | undefined, incoming: number | undefined): number | undefined {
  if (incoming === undefined) return held;
  return held === undefined ? incoming : Math.max(held, incoming);
}

/**
 * Whether the chart's suspension changed since its status last said so: suspended (the annotation) and not yet
 * reported, or reported and no longer suspended. Pure: the main loop waits on it.
 */
export function suspensionToReport(
  s: Pick<ChartState, 'desired' | 'suspendReported'>,
): 'suspended' | 'resumed' | undefined {
  const suspended = s.desired?.suspended === true;
  if (suspended === (s.suspendReported === true)) return undefined;
  return suspended ? 'suspended' : 'resumed';
}

/**
 * Whether what holds the chart back for its dependencies changed since its status last said so: a new hold (or
 * the same reason with other charts named), or `ready` once a hold it reported is gone. Pure: the main loop waits
 * on it.
 */
export function dependenciesToReport(
  s: Pick<ChartState, 'desired' | 'dependenciesReported'>,
): DependencyHold | 'ready' | undefined {
  const current = s.desired?.dependencies;
  const reported = s.dependenciesReported;
  if (current === undefined) return reported === undefined ? undefined : 'ready';
  const same = reported !== undefined && reported.reason === current.reason && reported.message === current.message;
  return same ? undefined : current;
}

/** The phase a chart shows once its suspension ends, before anything else runs. */
export function phaseAfterResume(s: Pick<ChartState, 'paused' | 'lastFailure' | 'installedDigest'>): Phase {
  if (s.paused) return 'Paused';
  if (s.lastFailure !== undefined) return 'Failed';
  return s.installedDigest === undefined ? 'Pending' : 'Installed';
}

export function statusOf(state: ChartState): ChartStatus {
  return {
    ref: state.ref,
    uid: state.uid,
    phase: state.phase,
    desiredDigest: state.desired?.digest,
    installedDigest: state.installedDigest,
    attempt: state.attempt,
    jobName: state.jobName,
    lastFailure: state.lastFailure,
  };
}
