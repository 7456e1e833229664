import { DryRunRenderedCondition, SourceAccessibleCondition } from './reasons.js';

/**
 * The reasons of the Events helmflow records on a HelmChart, in one place: users and alerts match on them
 * (`kubectl get events --field-selector reason=…`), so one may be added but none is ever renamed. An Event's
 * type says whether it is a warning; the condition reasons are in reasons.ts.
 */
export const ChartEventReason = {
  /** A pod of the install Job failed while the Job still retries (one aggregated Event per attempt). */
  InstallAttemptFailed: 'HelmChartInstallAttemptFailed',
  InstallFailed: 'HelmChartInstallFailed',
  UninstallFailed: 'HelmChartUninstallFailed',
  /** An unmanaged chart was deleted: its release is left installed, no helm uninstall runs. */
  UninstallSkipped: 'HelmChartUninstallSkipped',
  Retry: 'HelmChartRetry',
  Paused: 'HelmChartPaused',
  Suspended: 'HelmChartSuspended',
  Resumed: 'HelmChartResumed',
  WaitingForDependencies: 'HelmChartWaitingForDependencies',
  DependencyCycle: 'HelmChartDependencyCycle',
  InvalidDependsOn: 'HelmChartInvalidDependsOn',
  DependenciesReady: 'HelmChartDependenciesReady',
  CRDsStale: 'HelmChartCRDsStale',
  CRDsApplied: 'HelmChartCRDsApplied',
  /** A release a dead helm left pending was marked failed so that the next helm may run. */
  ReleaseUnlocked: 'HelmReleaseUnlocked',
  // A failed pre-flight's Events carry the reason of the condition it set False.
  RepositoryUnreachable: SourceAccessibleCondition.repositoryUnreachable,
  ChartNotFound: SourceAccessibleCondition.chartNotFound,
  VersionNotFound: SourceAccessibleCondition.versionNotFound,
  RenderFailed: DryRunRenderedCondition.renderFailed,
} as const;
export type ChartEventReason = (typeof ChartEventReason)[keyof typeof ChartEventReason];
