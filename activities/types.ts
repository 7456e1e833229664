/**
 * What the chart workflow asks of its activities. Inputs and results carry names, uids, digests and reasons —
 * never values, Secret data or log text — because all of them are written to Temporal history.
 */
import type { ReleaseSummary } from '../src/release/summary.js';
import type { ChartRef } from '../src/api/index.js';
import type { ChartEventReason } from '../src/api/event-reasons.js';

/** A HelmChart as one uid: a write meant for a deleted-and-recreated chart must not touch the new one. */
export interface ChartTarget {
  ref: ChartRef;
  uid: string;
}

export interface Refusal {
  reason: string;
  message: string;
}

export type Inspection =
  { state: 'present'; generation: number; deleting: boolean; refusal: Refusal | undefined } | { state: 'gone' };

/**
 * What prepareInstall did with its one read: the chart is gone, refused (no object created), its install Job
 * started, or, before an upgrade of a chart with CRDs, its helm-crds-<name> Job started instead (src/build/crds-job.ts).
 */
export type Preparation =
  /** The chart is gone under this uid, or a retry found this attempt's Job built from an older spec (createAttemptJob). */
  | { state: 'gone' }
  | { state: 'refused'; generation: number; refusal: Refusal }
  | { state: 'started'; generation: number; job: StartedJob }
  | { state: 'crdsCheck'; generation: number; job: StartedJob }
  /** An upgrade of a chartContent chart whose crds/ the cluster has behind: no Job was created. */
  | { state: 'crdsStale'; generation: number; behind: string }
  /**
   * --max-running-jobs of helmflow's install Jobs run: this Job (`jobName`) was not created. `nearFront`: fewer
   * waiters ahead of the chart than slots (absent in results recorded before it was reported).
   */
  | { state: 'noSlot'; generation: number; jobName: string; nearFront?: boolean };

/** What the workflow knows of the chart's crds/ when it prepares an attempt (see crdsStepOf in src/build). */
export interface CrdsHint {
  /** The digest whose crds/ this attempt already compared before its install Job. */
  checkedDigest?: string;
  /** Whether the chart printed any CRDs the last time they were read (absent: never read by this workflow). */
  chartCrds?: boolean;
}

/**
 * How the comparison before an upgrade ended: nothing behind (or applied, as annotated), so the install Job may
 * go; something behind, already reported on the chart (CRDsCurrent=False/CRDsStale and a Warning), so the upgrade
 * must not run; or the crds Job did not print them (it failed or vanished), so the install Job goes ahead and its
 * own pre-flight and `crds` step say why. Names of CRDs and fields only, never their documents.
 */
export type CrdsVerdict =
  | { state: 'current'; crds: number }
  | { state: 'stale'; crds: number; behind: string }
  | { state: 'unread'; why: string };

export interface StartedJob {
  jobName: string;
  jobUid: string;
  /** The digest the Job was built from (its annotation): what this attempt installs. */
  digest: string;
  /** activeDeadlineSeconds of the Job: the bound of the wait. */
  deadlineSeconds: number;
}

export type JobOutcome = (
  | { outcome: 'succeeded' }
  | { outcome: 'failed'; reason: string }
  | { outcome: 'gone' }
  /** A pod failed and the Job retries: already on the chart (condition and Event); counts only, never logs. */
  | { outcome: 'podFailed'; failedPods: number; exitCode?: number }
) & {
  /** Set when this wait read the chart's crds/ from the install Job's `crds` step: how many CRDs it printed. */
  chartCrds?: number;
};

/** What awaitJob waits on. */
export interface AwaitedJob {
  jobName: string;
  jobUid: string;
  deadlineSeconds: number;
  /**
   * Set for an install Job: the failed pods already reported. The wait then reports each new failed pod on the
   * chart and returns `podFailed`; without it (a workflow from before this), it waits for the end only.
   */
  failedPodsReported?: number;
  /**
   * Set by lean runs for an install Job: the rest of the attempt's success report (phase Installed, digest,
   * observedGeneration), written with Installed=True in the one write the wait makes when the Job succeeds.
   */
  installed?: StatusUpdate;
  /** Set when this attempt compared the chart's crds/ before the Job (helm-crds-<name>): the wait does not again. */
  crdsCompared?: boolean;
}

export interface ConditionUpdate {
  type: string;
  status: 'True' | 'False' | 'Unknown';
  reason: string;
  message: string;
}

export interface StatusUpdate {
  conditions: ConditionUpdate[];
  jobName?: string;
  phase?: string;
  /** The digest the status now describes (set on success). */
  digest?: string;
  observedGeneration?: number;
  /** The helm release as read from the cluster (activities/release.ts); null: there is none any more. */
  release?: ReleaseSummary | null;
}

/** What recordRelease saw: the newest revision's number and status (no values), or that there is none. */
export type ReleaseObservation = { state: 'absent' } | { state: 'present'; revision: number; status: string };

export interface ChartEvent {
  type: 'Normal' | 'Warning';
  reason: ChartEventReason;
  message: string;
}

/** The activities as the workflow calls them; activities/index.ts implements them against Kubernetes. */
export interface ChartActivities {
  /**
   * One read of the chart (its HelmChartConfig and Secrets), validated; from it the identity, the values Secret,
   * the chart ConfigMap and this attempt's Job. Replaces inspectChart, ensureIdentity, ensureInstallInputs and
   * startInstallJob, which stay for runs recorded before the patch one-prepare-step.
   */
  prepareInstall(target: ChartTarget, attempt: number, crds?: CrdsHint): Promise<Preparation>;
  /**
   * Waits for helm-crds-<name> (heartbeating, bounded by its deadline), then compares the crds/ it printed with
   * the cluster's and reports, or applies them when the chart says `<group>/crds: apply`.
   */
  awaitChartCrds(target: ChartTarget, job: StartedJob): Promise<CrdsVerdict>;
  /**
   * Waits (SLOT_WAIT_MS at most, heartbeating) until fewer than --max-running-jobs of helmflow's install Jobs run
   * and the chart's turn has come, and takes the slot for `jobName`; false if none came free meanwhile.
   */
  awaitJobSlot(target: ChartTarget, jobName: string): Promise<boolean>;
  /** Reads the chart (and its HelmChartConfig and Secrets) and validates it; reports whether it is still this uid. */
  inspectChart(target: ChartTarget): Promise<Inspection>;
  /** ServiceAccount helm-<name> and ClusterRoleBinding helm-<namespace>-<name>. */
  ensureIdentity(target: ChartTarget): Promise<void>;
  /** Secret chart-values-<name> and, for chartContent, ConfigMap chart-content-<name>. */
  ensureInstallInputs(target: ChartTarget): Promise<void>;
  /** Replaces any older helm-install-<name> (waiting until it is gone) and creates this attempt's; undefined if the chart is gone. */
  startInstallJob(target: ChartTarget, attempt: number): Promise<StartedJob | undefined>;
  /** Waits for the Job to finish (or, for an install, a pod to fail), heartbeating; bounded by the Job's deadline. */
  awaitJob(ref: ChartRef, job: AwaitedJob): Promise<JobOutcome>;
  /** Deletes a Job and its pods, waiting until they are gone. */
  deleteJob(ref: ChartRef, jobName: string): Promise<void>;
  setStatus(target: ChartTarget, update: StatusUpdate): Promise<void>;
  recordEvent(target: ChartTarget, event: ChartEvent): Promise<void>;
  /** Failed condition and a HelmChartInstallFailed Warning carrying the tail of the Job's log. */
  recordInstallFailure(target: ChartTarget, jobName: string, reason: string): Promise<void>;
  /** helm-delete-<name> (and the identity it runs as, if missing), replacing an older one. */
  startDeleteJob(target: ChartTarget): Promise<StartedJob | undefined>;
  /** HelmChartUninstallFailed Warning naming the release, with the tail of the delete Job's log. */
  recordUninstallFailure(target: ChartTarget, jobName: string, reason: string): Promise<void>;
  /** ServiceAccount, ClusterRoleBinding, values Secret and chart ConfigMap. */
  removeInstallObjects(target: ChartTarget): Promise<void>;
  releaseFinalizer(target: ChartTarget): Promise<void>;
  /** Reads the chart's helm release from the cluster and writes it to status.release when it differs. */
  recordRelease(target: ChartTarget): Promise<ReleaseObservation>;
}
