import type { V1Job } from '@kubernetes/client-node';
import type { HelmChart, HelmChartConfig } from '../api/index.js';
import { chartCrdsArgs, installArgs, preflightArgs } from './helm-args.js';
import {
  PREFLIGHT_SKIP,
  actionLabelKey,
  chartLabels,
  digestAnnotationKey,
  egressAnnotations,
  preflightAnnotationKey,
  skipsPreflight,
  jobWaitStrategy,
} from './labels.js';
import { chartContentVolume } from './chart-content.js';
import { installJobName, valuesSecretName } from './names.js';
import type { ResolvedOptions } from './options.js';
import { ownerReference } from './owner.js';
import { CRDS_CONTAINER, PREFLIGHT_CONTAINER, helmPodSpec, type InitStep, type JobVolume } from './pod.js';
import { chartSettingsOf } from './settings.js';
import { chartSource } from './source.js';
import { VALUES_DIR, type ValuesFile } from './values-files.js';

function installVolumes(chart: HelmChart, withContent: boolean): JobVolume[] {
  const volumes: JobVolume[] = [
    {
      volume: { name: 'values', secret: { secretName: valuesSecretName(chart.metadata.name), defaultMode: 0o444 } },
      dir: VALUES_DIR,
      readOnly: true,
    },
  ];
  if (withContent) volumes.push(chartContentVolume(chart));
  return volumes;
}

/**
 * helm-install-<name>: pre-flight (init containers: `helm template --dry-run=server`, see preflightArgs, then,
 * for a chart helm fetches, `helm show crds`, see chartCrdsArgs), then `helm upgrade --install`, with the values
 * Secret (and the chart archive, for chartContent) mounted. A HelmChart annotated `<group>/preflight: skip` gets no
 * `preflight` container, and its Job carries the same annotation, saying so. Retries under backoffLimit and is
 * stopped after twice the timeout, so a broken chart cannot keep spawning pods. Only a Job that fetches its chart
 * carries the egress annotation.
 */
export function installJob(
  chart: HelmChart,
  config: HelmChartConfig | undefined,
  files: readonly ValuesFile[],
  digest: string,
  options: ResolvedOptions,
): V1Job {
  const { group } = options;
  const settings = chartSettingsOf(chart, config);
  const source = chartSource(chart.spec);
  const labels = { ...chartLabels(chart, group), [actionLabelKey(group)]: 'install' };
  const egress = egressAnnotations(source);
  const wait = jobWaitStrategy(chart.metadata.annotations, group);
  const args = installArgs(settings, source, files, chart.spec.set, wait);
  const skip = skipsPreflight(chart.metadata.annotations, group);
  const preflight: InitStep[] = skip
    ? []
    : [{ name: PREFLIGHT_CONTAINER, args: preflightArgs(settings, source, files, chart.spec.set) }];
  // A chartContent chart's crds/ are read by the worker from its archive (activities/archive-crds.ts).
  const crds: InitStep[] = source.kind === 'content' ? [] : [{ name: CRDS_CONTAINER, args: chartCrdsArgs(source) }];
  const init: InitStep[] = [...preflight, ...crds];
  const skipped: Record<string, string> = skip ? { [preflightAnnotationKey(group)]: PREFLIGHT_SKIP } : {};
  return {
    apiVersion: 'batch/v1',
    kind: 'Job',
    metadata: {
      name: installJobName(chart.metadata.name),
      namespace: chart.metadata.namespace,
      labels,
      annotations: { ...egress, ...skipped, [digestAnnotationKey(group)]: digest },
      ownerReferences: [ownerReference(chart, group)],
    },
    spec: {
      backoffLimit: settings.backoffLimit,
      activeDeadlineSeconds: settings.activeDeadlineSeconds,
      template: {
        // The pod carries the egress annotation too: network policy acts on pods.
        metadata: { labels: { ...labels }, annotations: { ...egress } },
        spec: helmPodSpec(chart, settings, options, args, installVolumes(chart, source.kind === 'content'), init),
      },
    },
  };
}
