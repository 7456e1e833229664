import type { V1ClusterRoleBinding, V1ConfigMap, V1Job, V1Secret, V1ServiceAccount } from '@kubernetes/client-node';
import { installProblems, type HelmChart, type HelmChartConfig, type Refusal, type SecretData } from '../api/index.js';
import { chartContentConfigMap } from './chart-content.js';
import { annotationRefusal } from './choice-annotations.js';
import { clusterRoleBinding } from './cluster-role-binding.js';
import { crdsJob } from './crds-job.js';
import { uninstallJob } from './uninstall-job.js';
import { desiredDigest } from './digest.js';
import { installJob } from './install-job.js';
import { resolveOptions, type BuildOptions } from './options.js';
import { serviceAccount } from './service-account.js';
import { setEntries } from './set-args.js';
import { valuesFiles } from './values-files.js';
import { valuesSecret } from './values-secret.js';

export * from './canonical-json.js';
export { desiredDigest } from './digest.js';
export * from './labels.js';
export * from './names.js';
export * from './options.js';
export { CRDS_CONTAINER, HELM_CONTAINER, PREFLIGHT_CONTAINER, WORKING_DIR } from './pod.js';
export { DELETE_JOB_TTL_SECONDS } from './uninstall-job.js';
export { waitArg } from './helm-args.js';
export { installObjectRefs, type InstallObjectRefs, type ObjectRef } from './install-object-refs.js';
export { CRDS_JOB_TTL_SECONDS, crdsStepOf, type CrdsKnowledge, type CrdsStep } from './crds-job.js';
export { chartSettingsOf, type ChartSettings } from './settings.js';
export { chartSource, fetchesChart, type ChartSource } from './source.js';
export { setEntries, setStringText, type SetEntries } from './set-args.js';
export { valuesFiles, type ValuesFile } from './values-files.js';

/** What an install is built from: the HelmChart, its HelmChartConfig (same name) and its values Secrets' data. */
export interface InstallInput {
  chart: HelmChart;
  config?: HelmChartConfig;
  /** Data of the Secrets named by valuesSecrets (name → key → text); a missing Secret is absent. */
  secrets?: SecretData;
}

/** Every object one install needs, in the order to create them, and the digest they were built from. */
export interface InstallObjects {
  digest: string;
  serviceAccount: V1ServiceAccount;
  clusterRoleBinding: V1ClusterRoleBinding;
  valuesSecret: V1Secret;
  /** Only for a chartContent install. */
  chartContent?: V1ConfigMap;
  job: V1Job;
  /** helm-crds-<name>, created instead of the install Job when the chart's crds/ are compared first (crds-job.ts). */
  crdsJob: V1Job;
}

export type InstallPlan = { ok: true; objects: InstallObjects } | { ok: false; refusal: Refusal };

/** Builds an install without validating it; callers that have not validated should use planInstall. */
export function buildInstall(input: InstallInput, buildOptions: BuildOptions = {}): InstallObjects {
  const options = resolveOptions(buildOptions);
  const { chart, config } = input;
  const secrets = input.secrets ?? {};
  const files = valuesFiles(chart, config, secrets);
  const digest = desiredDigest(chart, config, secrets, options);
  const content = chartContentConfigMap(chart, options.group);
  return {
    digest,
    serviceAccount: serviceAccount(chart, options.group),
    clusterRoleBinding: clusterRoleBinding(chart, options.group, options.clusterRole),
    valuesSecret: valuesSecret(chart, options.group, [...files, ...setEntries(chart.spec.set).files]),
    ...(content === undefined ? {} : { chartContent: content }),
    job: installJob(chart, config, files, digest, options),
    crdsJob: crdsJob(chart, config, digest, options),
  };
}

/** Validates, then builds: a refusal (for the Failed condition) means no object may be created. */
export function planInstall(input: InstallInput, buildOptions: BuildOptions = {}): InstallPlan {
  const { group } = resolveOptions(buildOptions);
  const refusal =
    installProblems(input.chart, input.config, input.secrets ?? {})[0] ?? annotationRefusal(input.chart, group);
  return refusal === undefined ? { ok: true, objects: buildInstall(input, buildOptions) } : { ok: false, refusal };
}

/** The objects an uninstall needs: the delete Job and the identity it runs as. */
export interface DeleteObjects {
  serviceAccount: V1ServiceAccount;
  clusterRoleBinding: V1ClusterRoleBinding;
  job: V1Job;
}

export function buildDelete(chart: HelmChart, buildOptions: BuildOptions = {}): DeleteObjects {
  const options = resolveOptions(buildOptions);
  return {
    serviceAccount: serviceAccount(chart, options.group),
    clusterRoleBinding: clusterRoleBinding(chart, options.group, options.clusterRole),
    job: uninstallJob(chart, options),
  };
}
