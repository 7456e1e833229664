import {
  API_VERSION,
  HELM_CHART_KIND,
  K3S_GROUP,
  K3S_HELM_CHART_GVK,
  K3S_OWNER_GVK_ANNOTATION,
  K3S_OWNER_NAME_ANNOTATION,
  K3S_OWNER_NAMESPACE_ANNOTATION,
  type ApiGroup,
} from '../api/index.js';
import { chartLabelKey, MANAGED_BY, namespaceLabelKey, uidLabelKey } from './labels.js';

/** The HelmChart an object of a derived name is meant for. */
export interface ChartIdentity {
  group: ApiGroup;
  namespace: string;
  name: string;
  uid: string;
}

/** What ownership is read from: an existing object's metadata. */
export interface OwnedMetadata {
  labels?: Readonly<Record<string, string>>;
  annotations?: Readonly<Record<string, string>>;
  ownerReferences?: readonly { apiVersion: string; kind: string; uid: string }[];
}

/**
 * Whose an existing object of a derived name is, read from its labels (and, for k3s's, its annotations):
 * - `mine`: it carries this chart's uid label;
 * - `predecessor`: helmflow made it for an earlier HelmChart of this very namespace and name (deleted with its
 *   finalizer removed by hand, so its clean-up never ran). Names are unique, so that chart is gone: adopting its
 *   objects is no takeover;
 * - `k3s`: serving helm.cattle.io, k3s's own helm-controller made it for this very HelmChart (see madeByK3sFor):
 *   helmflow now does that controller's work for the chart, so adopting its objects is no takeover;
 * - `foreign`: anything else (a user's object, another chart's): never touched.
 */
export type Ownership = 'mine' | 'predecessor' | 'k3s' | 'foreign';

export function ownershipOf(metadata: OwnedMetadata | undefined, chart: ChartIdentity): Ownership {
  const labels = metadata?.labels;
  const uid = labels?.[uidLabelKey(chart.group)];
  if (uid === chart.uid) return 'mine';
  if (uid === undefined && madeByK3sFor(metadata, chart)) return 'k3s';
  const madeByHelmflow = labels?.['app.kubernetes.io/managed-by'] === MANAGED_BY && uid !== undefined;
  const sameChart = labels?.[chartLabelKey(chart.group)] === chart.name;
  // Namespaced objects live in the chart's namespace; a cluster-scoped one says its namespace in a label.
  const namespace = labels?.[namespaceLabelKey(chart.group)];
  const sameNamespace = namespace === undefined || namespace === chart.namespace;
  return madeByHelmflow && sameChart && sameNamespace ? 'predecessor' : 'foreign';
}

/**
 * k3s's helm-controller applies each object it makes for a HelmChart through wrangler, which records the owner in
 * annotations (group/version/kind, name, namespace) and, on namespaced objects, adds an owner reference with the
 * HelmChart's uid. All must name this chart: the annotations this very chart, and every HelmChart owner reference
 * this chart's uid (a reference to an earlier chart of the same name is the garbage collector's to clear). A
 * user's object carries none of this, so it stays foreign.
 */
export function madeByK3sFor(metadata: OwnedMetadata | undefined, chart: ChartIdentity): boolean {
  if (chart.group !== K3S_GROUP) return false;
  const annotations = metadata?.annotations;
  if (annotations?.[K3S_OWNER_GVK_ANNOTATION] !== K3S_HELM_CHART_GVK) return false;
  if (annotations[K3S_OWNER_NAME_ANNOTATION] !== chart.name) return false;
  if (annotations[K3S_OWNER_NAMESPACE_ANNOTATION] !== chart.namespace) return false;
  const chartOwners = (metadata?.ownerReferences ?? []).filter(
    (ref) => ref.apiVersion === `${K3S_GROUP}/${API_VERSION}` && ref.kind === HELM_CHART_KIND,
  );
  return chartOwners.every((ref) => ref.uid === chart.uid);
}

/** The ObjectNotOwned message: which object, whose it looks like, and how to resolve it. */
export function notOwnedMessage(
  object: { kind: string; namespace?: string; name: string },
  labels: Readonly<Record<string, string>> | undefined,
  chart: ChartIdentity,
): string {
  const where = object.namespace === undefined ? object.name : `${object.namespace}/${object.name}`;
  const uid = labels?.[uidLabelKey(chart.group)];
  const whose = uid === undefined ? `it has no ${uidLabelKey(chart.group)} label` : `it belongs to uid ${uid}`;
  return (
    `${object.kind} ${where} already exists and is not HelmChart ${chart.namespace}/${chart.name}'s (${whose}); ` +
    `helmflow never takes an object over. Delete or rename that ${object.kind}, or give the HelmChart another name.`
  );
}
