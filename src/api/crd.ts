import {
  API_VERSION,
  HELM_CHART_CONFIG_KIND,
  HELM_CHART_CONFIG_PLURAL,
  HELM_CHART_KIND,
  HELM_CHART_PLURAL,
  type ApiGroup,
} from './group.js';
import { helmChartConfigSchema, helmChartSchema } from './helm-chart-schema.js';
import type { OpenApiSchema } from './schema.js';

/** A CustomResourceDefinition as plain data, ready to serialise or send. */
export interface CustomResourceDefinition {
  apiVersion: 'apiextensions.k8s.io/v1';
  kind: 'CustomResourceDefinition';
  metadata: { name: string; labels: Record<string, string> };
  spec: {
    group: ApiGroup;
    names: { kind: string; listKind: string; plural: string; singular: string; shortNames: string[] };
    scope: 'Namespaced';
    versions: {
      name: string;
      served: boolean;
      storage: boolean;
      schema: { openAPIV3Schema: OpenApiSchema };
      subresources?: { status: Record<string, never> };
      additionalPrinterColumns?: PrinterColumn[];
    }[];
  };
}

export interface PrinterColumn {
  name: string;
  type: 'string' | 'boolean' | 'integer' | 'date';
  jsonPath: string;
  priority?: number;
  description?: string;
}

/**
 * `kubectl get helmcharts -A` must show the Job and whether the last run failed, so Job has priority 0 (k3s hides
 * it behind -o wide with priority 10); the release's revision and status as read from the cluster stand beside it.
 */
export const HELM_CHART_PRINTER_COLUMNS: PrinterColumn[] = [
  { name: 'Repo', type: 'string', jsonPath: '.spec.repo' },
  { name: 'Chart', type: 'string', jsonPath: '.spec.chart' },
  { name: 'Version', type: 'string', jsonPath: '.spec.version' },
  { name: 'TargetNamespace', type: 'string', jsonPath: '.spec.targetNamespace' },
  { name: 'Bootstrap', type: 'boolean', jsonPath: '.spec.bootstrap' },
  { name: 'Failed', type: 'string', jsonPath: ".status.conditions[?(@.type=='Failed')].status" },
  { name: 'Job', type: 'string', jsonPath: '.status.jobName', priority: 0 },
  {
    name: 'Revision',
    type: 'integer',
    jsonPath: '.status.release.revision',
    description: 'The helm release revision.',
  },
  {
    name: 'Release',
    type: 'string',
    jsonPath: '.status.release.status',
    description: 'deployed, failed, pending-*, …',
  },
  { name: 'Age', type: 'date', jsonPath: '.metadata.creationTimestamp' },
];

const labels = { 'app.kubernetes.io/part-of': 'helmflow' };

export function helmChartCrd(group: ApiGroup): CustomResourceDefinition {
  return {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: `${HELM_CHART_PLURAL}.${group}`, labels },
    spec: {
      group,
      names: {
        kind: HELM_CHART_KIND,
        listKind: `${HELM_CHART_KIND}List`,
        plural: HELM_CHART_PLURAL,
        singular: 'helmchart',
        shortNames: ['hc'],
      },
      scope: 'Namespaced',
      versions: [
        {
          name: API_VERSION,
          served: true,
          storage: true,
          schema: { openAPIV3Schema: helmChartSchema.openapi },
          subresources: { status: {} },
          additionalPrinterColumns: HELM_CHART_PRINTER_COLUMNS,
        },
      ],
    },
  };
}

export function helmChartConfigCrd(group: ApiGroup): CustomResourceDefinition {
  return {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: `${HELM_CHART_CONFIG_PLURAL}.${group}`, labels },
    spec: {
      group,
      names: {
        kind: HELM_CHART_CONFIG_KIND,
        listKind: `${HELM_CHART_CONFIG_KIND}List`,
        plural: HELM_CHART_CONFIG_PLURAL,
        singular: 'helmchartconfig',
        shortNames: ['hcc'],
      },
      scope: 'Namespaced',
      versions: [
        { name: API_VERSION, served: true, storage: true, schema: { openAPIV3Schema: helmChartConfigSchema.openapi } },
      ],
    },
  };
}

/** Both CRDs of a group, HelmChart first. */
export function crdsFor(group: ApiGroup): CustomResourceDefinition[] {
  return [helmChartCrd(group), helmChartConfigCrd(group)];
}
