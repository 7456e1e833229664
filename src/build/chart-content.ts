import type { V1ConfigMap } from '@kubernetes/client-node';
import { compactBase64, type ApiGroup, type HelmChart } from '../api/index.js';
import { chartLabels } from './labels.js';
import { chartContentConfigMapName } from './names.js';
import { ownerReference } from './owner.js';
import type { JobVolume } from './pod.js';
import { CHART_ARCHIVE_KEY, CHART_DIR } from './source.js';

/**
 * chart-content-<name>: the archive of a chartContent install as binaryData, mounted where the Job's chart
 * reference points. Only built when spec.chartContent is set.
 */
export function chartContentConfigMap(chart: HelmChart, group: ApiGroup): V1ConfigMap | undefined {
  const content = chart.spec.chartContent;
  if (content === undefined || content === '') return undefined;
  return {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: {
      name: chartContentConfigMapName(chart.metadata.name),
      namespace: chart.metadata.namespace,
      labels: chartLabels(chart, group),
      ownerReferences: [ownerReference(chart, group)],
    },
    // binaryData is base64 on the wire, so the HelmChart's text goes in as is, minus YAML line folding.
    binaryData: { [CHART_ARCHIVE_KEY]: compactBase64(content) },
  };
}

/** The volume that mounts chart-content-<name> where a Job's chart reference points (CHART_DIR). */
export function chartContentVolume(chart: HelmChart): JobVolume {
  return {
    volume: { name: 'chart', configMap: { name: chartContentConfigMapName(chart.metadata.name), defaultMode: 0o444 } },
    dir: CHART_DIR,
    readOnly: true,
  };
}
