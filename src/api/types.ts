import type {
  FAILURE_POLICIES,
  HELM_DRIVERS,
  SERVER_SIDE_VALUES,
  helmChartConditionSchema,
  helmChartConfigSpecSchema,
  helmChartSpecSchema,
  helmChartStatusSchema,
} from './helm-chart-schema.js';
import type { ApiGroup } from './group.js';
import type { TypeOf } from './schema.js';
import type { podSecurityContextSchema, securityContextSchema } from './security-context-schema.js';

/** The HelmChart types, inferred from the schemas the CRDs are generated from. */
export type HelmChartSpec = TypeOf<typeof helmChartSpecSchema>;
export type HelmChartStatus = TypeOf<typeof helmChartStatusSchema>;
export type HelmChartCondition = TypeOf<typeof helmChartConditionSchema>;
export type HelmChartConfigSpec = TypeOf<typeof helmChartConfigSpecSchema>;
export type ValuesSecret = NonNullable<HelmChartSpec['valuesSecrets']>[number];
export type PodSecurityContext = TypeOf<typeof podSecurityContextSchema>;
export type SecurityContext = TypeOf<typeof securityContextSchema>;

export type FailurePolicy = (typeof FAILURE_POLICIES)[number];
export type ServerSide = (typeof SERVER_SIDE_VALUES)[number];
export type HelmDriver = (typeof HELM_DRIVERS)[number];

/**
 * The metadata the builders read. Objects read from the apiserver always carry name, namespace and uid; the uid
 * guards every write (owner references, labels) so a recreated HelmChart of the same name is never confused
 * with the old one.
 */
export interface ObjectMeta {
  name: string;
  namespace: string;
  uid: string;
  generation?: number;
  resourceVersion?: string;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
  finalizers?: string[];
  deletionTimestamp?: string;
}

export interface HelmChart {
  apiVersion: string;
  kind: string;
  metadata: ObjectMeta;
  spec: HelmChartSpec;
  status?: HelmChartStatus;
}

export interface HelmChartConfig {
  apiVersion: string;
  kind: string;
  metadata: ObjectMeta;
  spec?: HelmChartConfigSpec;
}

/** Which HelmChart a workflow keeps: a chart is found again by these three, and guarded by its uid. */
export interface ChartRef {
  group: ApiGroup;
  namespace: string;
  name: string;
}
