import type { V1Job } from '@kubernetes/client-node';
import type { HelmChart, HelmChartConfig } from '../api/index.js';
import { chartCrdsArgs } from './helm-args.js';
import { actionLabelKey, chartLabels, digestAnnotationKey, egressAnnotations } from './labels.js';
import { chartContentVolume } from './chart-content.js';
import { crdsJobName } from './names.js';
import type { ResolvedOptions } from './options.js';
import { ownerReference } from './owner.js';
import { helmPodSpec, type JobVolume } from './pod.js';
import { chartSettingsOf } from './settings.js';
import { chartSource } from './source.js';

/** Kept ten minutes after it ends, like the delete Job: its log is the chart's `crds/` that were compared. */
export const CRDS_JOB_TTL_SECONDS = 600;

/**
 * helm-crds-<name>: `helm show crds` of the chart the next install Job will upgrade to, run before that Job exists,
 * so its `crds/` are compared with the cluster's (and, when asked, applied) before `helm upgrade` can run. It reads
 * static chart files only: no values are mounted. One pod, no retries: a chart that cannot be fetched is left to the
 * install Job's pre-flight to name. Controlled by its HelmChart, like the install Job.
 */
export function crdsJob(
  chart: HelmChart,
  config: HelmChartConfig | undefined,
  digest: string,
  options: ResolvedOptions,
): V1Job {
  const { group } = options;
  const settings = chartSettingsOf(chart, config);
  const source = chartSource(chart.spec);
  const labels = { ...chartLabels(chart, group), [actionLabelKey(group)]: 'crds' };
  const egress = egressAnnotations(source);
  const volumes: JobVolume[] = source.kind === 'content' ? [chartContentVolume(chart)] : [];
  return {
    apiVersion: 'batch/v1',
    kind: 'Job',
    metadata: {
      name: crdsJobName(chart.metadata.name),
      namespace: chart.metadata.namespace,
      labels,
      annotations: { ...egress, [digestAnnotationKey(group)]: digest },
      ownerReferences: [ownerReference(chart, group)],
    },
    spec: {
      backoffLimit: 0,
      activeDeadlineSeconds: settings.activeDeadlineSeconds,
      ttlSecondsAfterFinished: CRDS_JOB_TTL_SECONDS,
      template: {
        metadata: { labels: { ...labels }, annotations: { ...egress } },
        spec: helmPodSpec(chart, settings, options, chartCrdsArgs(source), volumes),
      },
    },
  };
}

/** What an install attempt does before its install Job, as crdsStepOf decides it. */
export type CrdsStep = 'install' | 'lookUpRelease' | 'checkCrds';

/** What is known when an attempt is prepared; the workflow carries chartCrds and checkedDigest. */
export interface CrdsKnowledge {
  /** The digest this attempt is about to install. */
  digest: string;
  /** The digest whose chart `crds/` this attempt already compared (undefined: none yet). */
  checkedDigest?: string | undefined;
  /** Whether the chart printed any CRDs the last time they were read (undefined: never read in this workflow). */
  chartCrds?: boolean | undefined;
  /** Whether helm has the release stored (undefined: not looked up yet). */
  releaseExists?: boolean | undefined;
}

/**
 * Whether the chart's `crds/` are compared before its install Job. helm leaves `crds/` alone on upgrade, so only an
 * upgrade can go ahead with CRDs behind the chart; a first install creates those that are absent (one that exists
 * and is behind is still named by the install Job's own `crds` step). A chart known to have no CRDs pays nothing,
 * and neither does a first install beyond one lookup of the release.
 */
export function crdsStepOf(k: CrdsKnowledge): CrdsStep {
  if (k.checkedDigest === k.digest || k.chartCrds === false) return 'install';
  if (k.releaseExists === undefined) return 'lookUpRelease';
  return k.releaseExists ? 'checkCrds' : 'install';
}
