import type { V1Job } from '@kubernetes/client-node';
import type { HelmChart } from '../api/index.js';
import { uninstallArgs } from './helm-args.js';
import { actionLabelKey, chartLabels, jobWaitStrategy } from './labels.js';
import { deleteJobName } from './names.js';
import type { ResolvedOptions } from './options.js';
import { helmPodSpec } from './pod.js';
import { chartSettingsOf } from './settings.js';

/** Kept ten minutes after it finishes, for inspection (seed: Deleting a Chart). */
export const DELETE_JOB_TTL_SECONDS = 600;

/**
 * helm-delete-<name>: `helm uninstall`. It has no owner reference on purpose: the HelmChart is gone once its
 * finalizer is released, and the garbage collector would take the Job with it instead of keeping it for ten
 * minutes. It fetches nothing, so it never carries the egress annotation. It waits as the chart's installs did
 * (`<group>/wait`, labels.ts); an uninstall is never refused (jobWaitStrategy).
 */
export function uninstallJob(chart: HelmChart, options: ResolvedOptions): V1Job {
  const { group } = options;
  const settings = chartSettingsOf(chart);
  const labels = { ...chartLabels(chart, group), [actionLabelKey(group)]: 'delete' };
  return {
    apiVersion: 'batch/v1',
    kind: 'Job',
    metadata: { name: deleteJobName(chart.metadata.name), namespace: chart.metadata.namespace, labels },
    spec: {
      backoffLimit: settings.backoffLimit,
      activeDeadlineSeconds: settings.activeDeadlineSeconds,
      ttlSecondsAfterFinished: DELETE_JOB_TTL_SECONDS,
      template: {
        metadata: { labels: { ...labels } },
        spec: helmPodSpec(
          chart,
          settings,
          options,
          uninstallArgs(settings, jobWaitStrategy(chart.metadata.annotations, group)),
          [],
        ),
      },
    },
  };
}
