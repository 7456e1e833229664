import {
  RETRY_ANNOTATION,
  SUSPEND_ANNOTATION,
  UNINSTALL_FINALIZER,
  UNMANAGED_ANNOTATION,
  type HelmChart,
  type HelmChartConfig,
  type SecretData,
} from '../api/index.js';
import { desiredDigest } from '../build/digest.js';
import type { BuildOptions } from '../build/options.js';
import { settingsOf } from '../build/settings.js';
import type { DesiredState } from '../../workflows/contract.js';

/** What the controller should do about one HelmChart. Pure: decided from the watched objects alone. */
export type ChartAction =
  | { kind: 'ignore'; why: string }
  | { kind: 'addFinalizer' }
  /** keepRelease: the chart is unmanaged, so its release is left alone (no helm uninstall), as k3s does. */
  | { kind: 'delete'; uid: string; keepRelease: boolean }
  | { kind: 'desired'; state: DesiredState; retryToken: string | undefined };

export function isUnmanaged(chart: HelmChart): boolean {
  const value = chart.metadata.annotations?.[UNMANAGED_ANNOTATION];
  return value !== undefined && value !== 'false';
}

/** Suspended by `helmflow chart suspend` (or by hand): any value of the annotation but "false". */
export function isSuspended(chart: HelmChart): boolean {
  const value = chart.metadata.annotations?.[SUSPEND_ANNOTATION];
  return value !== undefined && value !== 'false';
}

export function decide(
  chart: HelmChart,
  config: HelmChartConfig | undefined,
  secrets: SecretData,
  build: BuildOptions,
): ChartAction {
  const hasFinalizer = chart.metadata.finalizers?.includes(UNINSTALL_FINALIZER) === true;
  if (chart.metadata.deletionTimestamp !== undefined) {
    if (!hasFinalizer) return { kind: 'ignore', why: 'deleting, not ours' };
    return { kind: 'delete', uid: chart.metadata.uid, keepRelease: isUnmanaged(chart) };
  }
  if (isUnmanaged(chart)) return { kind: 'ignore', why: `annotated ${UNMANAGED_ANNOTATION}` };
  if (!hasFinalizer) return { kind: 'addFinalizer' };
  return {
    kind: 'desired',
    state: {
      uid: chart.metadata.uid,
      generation: chart.metadata.generation ?? 0,
      digest: desiredDigest(chart, config, secrets, build),
      failurePolicy: settingsOf(chart, config).failurePolicy,
      ...(isSuspended(chart) ? { suspended: true as const } : {}),
    },
    retryToken: chart.metadata.annotations?.[RETRY_ANNOTATION],
  };
}
