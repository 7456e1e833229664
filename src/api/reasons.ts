/**
 * Condition reasons for a HelmChart the controller refuses (the Failed condition's reason). Extra reasons may be
 * added; none is ever renamed, since users and alerts match on them.
 */
export const Reason = {
  InsecureRepo: 'InsecureRepo',
  InvalidRepo: 'InvalidRepo',
  CredentialsInURL: 'CredentialsInURL',
  InvalidChart: 'InvalidChart',
  ChartMissing: 'ChartMissing',
  ReservedField: 'ReservedField',
  ChartContentTooLarge: 'ChartContentTooLarge',
  InvalidChartContent: 'InvalidChartContent',
  NameTooLong: 'NameTooLong',
  InvalidFailurePolicy: 'InvalidFailurePolicy',
  InvalidServerSide: 'InvalidServerSide',
  InvalidTimeout: 'InvalidTimeout',
  InvalidDriver: 'InvalidDriver',
  InvalidTargetNamespace: 'InvalidTargetNamespace',
  InvalidBackOffLimit: 'InvalidBackOffLimit',
  /** The `<group>/wait` annotation names a wait strategy helm does not have. */
  InvalidWait: 'InvalidWait',
  /** The `<group>/preflight` annotation is neither `run` nor `skip`. */
  InvalidPreflight: 'InvalidPreflight',
  /** The `<group>/crds` annotation is neither `report` nor `apply`. */
  InvalidCrds: 'InvalidCrds',
  InvalidSet: 'InvalidSet',
  UnsupportedHelmVersion: 'UnsupportedHelmVersion',
  TooManyValuesSecrets: 'TooManyValuesSecrets',
  ValuesSecretNotFound: 'ValuesSecretNotFound',
  ValuesSecretKeyNotFound: 'ValuesSecretKeyNotFound',
  /** An object of a derived name (ServiceAccount, Secret, ConfigMap, binding) belongs to someone else. */
  ObjectNotOwned: 'ObjectNotOwned',
} as const;
export type Reason = (typeof Reason)[keyof typeof Reason];

/** Why a HelmChart cannot be installed: a condition reason and a sentence for the user. */
export interface Refusal {
  reason: Reason;
  message: string;
}

/**
 * Condition reasons for a Kubernetes call the apiserver refused for good (src/kube/api-errors.ts classifies): the
 * Failed condition's reason when an install or uninstall step cannot succeed by retrying.
 */
export const ApiErrorReason = {
  Invalid: 'Invalid',
  Forbidden: 'Forbidden',
  NamespaceTerminating: 'NamespaceTerminating',
  NamespaceNotFound: 'NamespaceNotFound',
  NotFound: 'NotFound',
  QuotaExceeded: 'QuotaExceeded',
  AdmissionDenied: 'AdmissionDenied',
  TooLarge: 'TooLarge',
  Rejected: 'Rejected',
} as const;
export type ApiErrorReason = (typeof ApiErrorReason)[keyof typeof ApiErrorReason];

/**
 * The other reasons helmflow gives the `Failed` condition (k3s's: the last Job failed), besides a refusal (Reason)
 * and the apiserver's (ApiErrorReason). A failed Job's own reason, such as `BackoffLimitExceeded` or
 * `DeadlineExceeded`, is passed on as Kubernetes gives it.
 */
export const FailedCondition = {
  type: 'Failed',
  /** A step kept failing on a transient error until its bound ran out. */
  stepTimedOut: 'StepTimedOut',
  stepFailed: 'StepFailed',
  /** The Job failed and Kubernetes gave no reason. */
  jobFailed: 'JobFailed',
  /** The Job was deleted before it ended. */
  jobDeleted: 'JobDeleted',
  uninstallTimedOut: 'UninstallTimedOut',
} as const;

/**
 * The `Installed` condition, by Kubernetes conventions (k3s's `Failed` keeps its meaning: the Job failed): False with
 * `InstallAttemptFailed` as soon as a pod of the install Job fails while the Job still retries, True once it succeeds.
 */
export const InstalledCondition = {
  type: 'Installed',
  attemptFailed: 'InstallAttemptFailed',
  succeeded: 'InstallSucceeded',
} as const;

/**
 * Pre-flight's first question (the install Job's init container, see src/build/helm-args.ts): could helm fetch
 * the chart? False with the reason helm's error names; True once a pre-flight got past fetching; Unknown with
 * `Skipped` when the chart is annotated to skip pre-flight (src/build/labels.ts preflightAnnotationKey).
 */
export const SourceAccessibleCondition = {
  type: 'SourceAccessible',
  accessible: 'ChartFetched',
  skipped: 'Skipped',
  repositoryUnreachable: 'RepositoryUnreachable',
  chartNotFound: 'ChartNotFound',
  versionNotFound: 'VersionNotFound',
} as const;

/**
 * Pre-flight's second question: did the chart render against the live cluster? False with `RenderFailed` and
 * helm's message; Unknown when the chart could not even be fetched, or with `Skipped` when pre-flight is skipped.
 */
export const DryRunRenderedCondition = {
  type: 'DryRunRendered',
  rendered: 'Rendered',
  renderFailed: 'RenderFailed',
  notFetched: 'SourceInaccessible',
  skipped: 'Skipped',
} as const;

/**
 * `CRDsCurrent`: do the cluster's CRDs declare every version and schema field of the chart's `crds/`? helm installs
 * `crds/` only when absent and never upgrades them, so a chart upgrade can leave them behind.
 */
export const CrdsCurrentCondition = {
  type: 'CRDsCurrent',
  current: 'CRDsCurrent',
  stale: 'CRDsStale',
  applied: 'CRDsApplied',
} as const;

/**
 * `DependenciesReady`: are the charts named by the chart's `helm.k3sm.io/depends-on` installed? False while they
 * are not (its installs wait), or, refused until the annotations change, when they form a cycle or an entry is not
 * a chart reference. Written only for charts that have, or had, the annotation.
 */
export const DependenciesReadyCondition = {
  type: 'DependenciesReady',
  ready: 'DependenciesInstalled',
  notReady: 'DependenciesNotReady',
  cycle: 'DependencyCycle',
  invalid: 'InvalidDependsOn',
} as const;
export type DependencyHoldReason = (typeof DependenciesReadyCondition)['notReady' | 'cycle' | 'invalid'];

/**
 * `JobCreated`: True once an attempt's Job exists; False with `WaitingForJobSlot` while helmflow's running install
 * Jobs are at the worker's --max-running-jobs, so a chart queued behind them says why it has no Job yet.
 */
export const JobCreatedCondition = {
  type: 'JobCreated',
  created: 'JobCreated',
  waiting: 'WaitingForJobSlot',
  /** The chart is being deleted and its helm uninstall Job exists. */
  uninstallCreated: 'UninstallJobCreated',
} as const;

/**
 * `Paused`: True with `Cancelled` once the chart's workflow was cancelled through Temporal (no install runs until
 * the spec changes or a retry); False again with the reason it ended.
 */
export const PausedCondition = {
  type: 'Paused',
  cancelled: 'Cancelled',
  retryRequested: 'RetryRequested',
  specChanged: 'SpecChanged',
} as const;

/** `Suspended`: True while the chart carries the suspend annotation, False once it is removed. */
export const SuspendedCondition = {
  type: 'Suspended',
  suspended: 'Suspended',
  resumed: 'Resumed',
} as const;
