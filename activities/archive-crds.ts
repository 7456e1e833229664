import { compactBase64, type HelmChart } from '../src/api/index.js';
import { archiveCrds } from '../src/chart/crds.js';
import { compareChartCrds, releaseExists } from './chart-crds.js';
import type { ActivityDeps } from './deps.js';
import type { ChartTarget } from './types.js';

/**
 * A chartContent chart's crds/, read by the worker from the archive in its spec (archiveCrds reads them as `helm
 * show crds` prints them) and compared with the cluster's CRDs before the attempt's Job exists, so that Job runs
 * no helm of its own for them. Returns what is behind when the attempt is an upgrade, which must not run: helm
 * upgrade never updates CRDs. A first install goes ahead with what is behind reported, as helm creates the absent
 * CRDs and leaves existing ones as they are. `attempt` is `<digest>/<attempt>`: the Event counts it once.
 */
export async function compareArchiveCrds(
  deps: ActivityDeps,
  target: ChartTarget,
  chart: HelmChart,
  attempt: string,
): Promise<string | undefined> {
  let printed: string;
  try {
    printed = await archiveCrds(Buffer.from(compactBase64(chart.spec.chartContent ?? ''), 'base64'));
  } catch (err) {
    // helm cannot install what cannot be read either: the Job's pre-flight (or its upgrade) names the error.
    deps.log.warn(
      { err, chart: target.ref.name },
      'spec.chartContent is no archive helmflow can read: crds/ not compared',
    );
    return undefined;
  }
  let stored: Promise<boolean> | undefined;
  const upgrade = () => (stored ??= releaseExists(deps, chart));
  const reader = { name: `spec.chartContent of ${target.ref.name}`, occurrence: attempt };
  const { behind } = await compareChartCrds(deps, target, reader, printed, upgrade);
  return behind !== undefined && (await upgrade()) ? behind : undefined;
}
