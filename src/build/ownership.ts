import type { ApiGroup } from '../api/index.js';
import { chartLabelKey, MANAGED_BY, namespaceLabelKey, uidLabelKey } from './labels.js';

/** The HelmChart an object of a derived name is meant for. */
export interface ChartIdentity {
  group: ApiGroup;
  namespace: string;
  name: string;
  uid: string;
}

/**
 * Whose an existing object of a derived name is, read from its labels:
 * - `mine`: it carries this chart's uid label;
 * - `predecessor`: helmflow made it for an earlier HelmChart of this very namespace and name (deleted with its
 *   finalizer removed by hand, so its clean-up never ran). Names are unique, so that chart is gone: adopting its
 *   objects is no takeover;
 * - `foreign`: anything else (a user's object, another chart's): never touched.
 */
export type Ownership = 'mine' | 'predecessor' | 'foreign';

export function ownershipOf(labels: Readonly<Record<string, string>> | undefined, chart: ChartIdentity): Ownership {
  const uid = labels?.[uidLabelKey(chart.group)];
  if (uid === chart.uid) return 'mine';
  const madeByHelmflow = labels?.['app.kubernetes.io/managed-by'] === MANAGED_BY && uid !== undefined;
  const sameChart = labels?.[chartLabelKey(chart.group)] === chart.name;
  // Namespaced objects live in the chart's namespace; a cluster-scoped one says its namespace in a label.
  const namespace = labels?.[namespaceLabelKey(chart.group)];
  const sameNamespace = namespace === undefined || namespace === chart.namespace;
  return madeByHelmflow && sameChart && sameNamespace ? 'predecessor' : 'foreign';
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
