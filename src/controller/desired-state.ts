import {
  DEFAULT_API_GROUP,
  RETRY_ANNOTATION,
  UNINSTALL_FINALIZER,
  isSuspended,
  isUnmanaged,
  uninstallFinalizers,
  type ApiGroup,
  type HelmChart,
  type HelmChartConfig,
  type SecretData,
} from '../api/index.js';
import { desiredDigest } from '../build/digest.js';
import type { BuildOptions } from '../build/options.js';
import { chartSettingsOf } from '../build/settings.js';
import type { DesiredState } from '../../workflows/contract.js';
import { dependencyHold, type ChartLookup } from './dependencies.js';

/** What the controller should do about one HelmChart. Pure: decided from the watched objects alone. */
export type ChartAction =
  | { kind: 'ignore'; why: string }
  | { kind: 'addFinalizer' }
  /** keepRelease: the chart is unmanaged, so its release is left alone (no helm uninstall), as k3s does. */
  | { kind: 'delete'; uid: string; keepRelease: boolean }
  | { kind: 'desired'; state: DesiredState; retryToken: string | undefined };

/**
 * Why the controller leaves a chart alone, or undefined when it does not: a chart being deleted without a
 * finalizer helmflow releases, or a live chart annotated unmanaged. A resync skips these too: nothing is ever
 * delivered to them, so without this every sweep would queue them again.
 */
export function ignoreReason(chart: HelmChart, group: ApiGroup): string | undefined {
  const finalizers = chart.metadata.finalizers ?? [];
  if (chart.metadata.deletionTimestamp !== undefined) {
    // k3s's finalizer alone (a chart deleted after k3s stopped, before helmflow took it) is a promise to keep too.
    return uninstallFinalizers(group).some((f) => finalizers.includes(f)) ? undefined : 'deleting, not ours';
  }
  return isUnmanaged(chart.metadata.annotations, group) ? 'annotated unmanaged' : undefined;
}

/** `charts`: the other HelmCharts as the controller sees them, for the chart's depends-on (dependencies.ts). */
export function decide(
  chart: HelmChart,
  config: HelmChartConfig | undefined,
  secrets: SecretData,
  build: BuildOptions,
  charts: ChartLookup = () => undefined,
): ChartAction {
  const group = build.group ?? DEFAULT_API_GROUP;
  const why = ignoreReason(chart, group);
  if (why !== undefined) return { kind: 'ignore', why };
  if (chart.metadata.deletionTimestamp !== undefined) {
    const keepRelease = isUnmanaged(chart.metadata.annotations, group);
    return { kind: 'delete', uid: chart.metadata.uid, keepRelease };
  }
  if (!(chart.metadata.finalizers ?? []).includes(UNINSTALL_FINALIZER)) return { kind: 'addFinalizer' };
  const dependencies = dependencyHold(chart, charts);
  return {
    kind: 'desired',
    state: {
      uid: chart.metadata.uid,
      generation: chart.metadata.generation ?? 0,
      digest: desiredDigest(chart, config, secrets, build),
      failurePolicy: chartSettingsOf(chart, config).failurePolicy,
      ...(isSuspended(chart.metadata.annotations) ? { suspended: true as const } : {}),
      ...(dependencies === undefined ? {} : { dependencies }),
    },
    retryToken: chart.metadata.annotations?.[RETRY_ANNOTATION],
  };
}
