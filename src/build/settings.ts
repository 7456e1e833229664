import {
  DEFAULT_BACKOFF_LIMIT,
  DEFAULT_DRIVER,
  DEFAULT_FAILURE_POLICY,
  DEFAULT_TIMEOUT,
  goDurationSeconds,
  type FailurePolicy,
  type HelmChart,
  type HelmChartConfig,
  type HelmDriver,
  type ServerSide,
} from '../api/index.js';

/** The settings of one install, after defaults and the HelmChartConfig overrides. */
export interface ChartSettings {
  release: string;
  namespace: string;
  targetNamespace: string;
  timeout: string;
  /** 2 × timeout (seed: "stopped after twice the timeout"), whole seconds, at least 1. */
  activeDeadlineSeconds: number;
  backoffLimit: number;
  failurePolicy: FailurePolicy;
  /** Unset: no --server-side flag, so helm applies its own default (auto). */
  serverSide?: ServerSide;
  forceConflicts: boolean;
  driver: HelmDriver;
  createNamespace: boolean;
  takeOwnership: boolean;
  bootstrap: boolean;
}

const DEFAULT_TIMEOUT_SECONDS = 300;

export function chartSettingsOf(chart: HelmChart, config?: HelmChartConfig): ChartSettings {
  const spec = chart.spec;
  const overlay = config?.spec ?? {};
  // Validation refuses a bad timeout; a builder still never emits a Job without a deadline.
  const parsed = spec.timeout === undefined || spec.timeout === '' ? undefined : goDurationSeconds(spec.timeout);
  const valid = parsed !== undefined && parsed > 0;
  const timeout = valid ? (spec.timeout ?? DEFAULT_TIMEOUT) : DEFAULT_TIMEOUT;
  const seconds = valid ? parsed : DEFAULT_TIMEOUT_SECONDS;
  const serverSide = overlay.serverSide ?? spec.serverSide;
  return {
    release: chart.metadata.name,
    namespace: chart.metadata.namespace,
    targetNamespace:
      spec.targetNamespace !== undefined && spec.targetNamespace !== ''
        ? spec.targetNamespace
        : chart.metadata.namespace,
    timeout,
    activeDeadlineSeconds: Math.max(1, Math.ceil(2 * seconds)),
    backoffLimit: spec.backOffLimit ?? DEFAULT_BACKOFF_LIMIT,
    // k3s: the HelmChartConfig's failurePolicy, serverSide and forceConflicts win when set.
    failurePolicy: overlay.failurePolicy ?? spec.failurePolicy ?? DEFAULT_FAILURE_POLICY,
    ...(serverSide === undefined ? {} : { serverSide }),
    forceConflicts: overlay.forceConflicts ?? spec.forceConflicts ?? false,
    driver: spec.driver ?? DEFAULT_DRIVER,
    createNamespace: spec.createNamespace === true,
    takeOwnership: spec.takeOwnership === true,
    bootstrap: spec.bootstrap === true,
  };
}
