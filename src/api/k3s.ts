import type { ApiGroup } from './group.js';

/**
 * What k3s's own helm-controller (github.com/k3s-io/helm-controller, helm.cattle.io) leaves on the objects it
 * manages, so helmflow serving helm.cattle.io can take over the HelmCharts it leaves behind. The names are k3s's.
 */

/** The finalizer k3s's controller puts on each HelmChart it manages (wrangler's OnRemove handler). */
export const K3S_FINALIZER = 'wrangler.cattle.io/on-helm-chart-remove';

/**
 * Wrangler's apply records, on every object it creates for a HelmChart (the ServiceAccount helm-<name>, the
 * ClusterRoleBinding helm-<namespace>-<name>, the values Secret, the chart ConfigMap, the Jobs), the owner it
 * applied them for, in these annotations.
 */
export const K3S_OWNER_GVK_ANNOTATION = 'objectset.rio.cattle.io/owner-gvk';
export const K3S_OWNER_NAME_ANNOTATION = 'objectset.rio.cattle.io/owner-name';
export const K3S_OWNER_NAMESPACE_ANNOTATION = 'objectset.rio.cattle.io/owner-namespace';

/** The owner-gvk value of a helm.cattle.io HelmChart, as wrangler writes a GroupVersionKind. */
export const K3S_HELM_CHART_GVK = 'helm.cattle.io/v1, Kind=HelmChart';

/** k3s leaves a HelmChart carrying this annotation (any value) alone, release and all. */
export const K3S_UNMANAGED_ANNOTATION = 'helmcharts.helm.cattle.io/unmanaged';

/** The group whose HelmCharts k3s's helm-controller made: only there is its vocabulary helmflow's concern. */
export const K3S_GROUP: ApiGroup = 'helm.cattle.io';
