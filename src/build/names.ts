/** The names of a HelmChart's objects: a contract with k3s users (test/e2e/seed-coverage.md), so never change them. */

export const serviceAccountName = (chartName: string): string => `helm-${chartName}`;

export const clusterRoleBindingName = (namespace: string, chartName: string): string =>
  `helm-${namespace}-${chartName}`;

export const valuesSecretName = (chartName: string): string => `chart-values-${chartName}`;

export const chartContentConfigMapName = (chartName: string): string => `chart-content-${chartName}`;

export const installJobName = (chartName: string): string => `helm-install-${chartName}`;

export const deleteJobName = (chartName: string): string => `helm-delete-${chartName}`;

/** The Job that prints a chart's `crds/` before an upgrade, so they are compared before helm runs (crds-job.ts). */
export const crdsJobName = (chartName: string): string => `helm-crds-${chartName}`;
