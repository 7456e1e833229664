import {
  DEFAULT_API_GROUP,
  RETRY_ANNOTATION,
  UNINSTALL_FINALIZER,
  isSuspended,
  isUnmanaged,
  uninstallFinalizers,
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

export function decide(
  chart: HelmChart,
  config: HelmChartConfig | undefined,
  secrets: SecretData,
  build: BuildOptions,
): ChartAction {
  const group = build.group ?? DEFAULT_API_GROUP;
  const finalizers = chart.metadata.finalizers ?? [];
  const unmanaged = isUnmanaged(chart.metadata.annotations, group);
  if (chart.metadata.deletionTimestamp !== undefined) {
    // k3s's finalizer alone (a chart deleted after k3s stopped, before helmflow took it) is a promise to keep too.
    if (!uninstallFinalizers(group).some((f) => finalizers.includes(f)))
      return { kind: 'ignore', why: 'deleting, not ours' };
    return { kind: 'delete', uid: chart.metadata.uid, keepRelease: unmanaged };
  }
  if (unmanaged) return { kind: 'ignore', why: 'annotated unmanaged' };
  if (!finalizers.includes(UNINSTALL_FINALIZER)) return { kind: 'addFinalizer' };
  return {
    kind: 'desired',
    state: {
      uid: chart.metadata.uid,
      generation: chart.metadata.generation ?? 0,
      digest: desiredDigest(chart, config, secrets, build),
      failurePolicy: settingsOf(chart, config).failurePolicy,
      ...(isSuspended(chart.metadata.annotations) ? { suspended: true as const } : {}),
    },
    retryToken: chart.metadata.annotations?.[RETRY_ANNOTATION],
  };
}
