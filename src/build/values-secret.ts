import type { V1Secret } from '@kubernetes/client-node';
import type { ApiGroup, HelmChart } from '../api/index.js';
import { chartLabels } from './labels.js';
import { valuesSecretName } from './names.js';
import { ownerReference } from './owner.js';
import type { ValuesFile } from './values-files.js';

/** The Secret type k3s gives its values Secret, under the served group. */
export const valuesSecretType = (group: ApiGroup): string => `helmcharts.${group}/values`;

/**
 * chart-values-<name>: every values file of the install and every string of spec.set, one key each, mounted into
 * the Job. Values travel only here (spec.set's integers, booleans and nulls aside, see set-args.ts), never in
 * environment or workflow history. Data is base64 (not stringData) so it compares
 * equal to what the apiserver returns.
 */
export function valuesSecret(chart: HelmChart, group: ApiGroup, files: readonly ValuesFile[]): V1Secret {
  const data: Record<string, string> = {};
  for (const file of files) data[file.key] = Buffer.from(file.content, 'utf8').toString('base64');
  return {
    apiVersion: 'v1',
    kind: 'Secret',
    type: valuesSecretType(group),
    metadata: {
      name: valuesSecretName(chart.metadata.name),
      namespace: chart.metadata.namespace,
      labels: chartLabels(chart, group),
      ownerReferences: [ownerReference(chart, group)],
    },
    data,
  };
}
