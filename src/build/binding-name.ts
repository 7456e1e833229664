import { createHash } from 'node:crypto';
import { clusterRoleBindingName } from './names.js';
import type { Ownership } from './ownership.js';

/**
 * The seed names the ClusterRoleBinding `helm-<namespace>-<name>`, which two charts can share: namespace `a-b`
 * chart `c` and namespace `a` chart `b-c` both make `helm-a-b-c`. The first to take it keeps it; the other gets
 * `helm-<namespace>-<name>-<hash of namespace/name>`, which no other chart can share, and finds it again by its uid
 * label. Charts that do not collide keep the seed's name.
 */
export function fallbackClusterRoleBindingName(namespace: string, chartName: string): string {
  const hash = createHash('sha256').update(`${namespace}/${chartName}`).digest('hex').slice(0, 8);
  return `${clusterRoleBindingName(namespace, chartName)}-${hash}`;
}

export interface BindingSituation {
  namespace: string;
  chartName: string;
  /** Names of the bindings that already carry this chart's uid label. */
  labelled: readonly string[];
  /** Who holds the seed's name now. */
  seed: Ownership | 'absent';
}

/** Which name this chart's binding has: the one it already holds, else the seed's when free, else the fallback. */
export function chooseBindingName(s: BindingSituation): string {
  const seedName = clusterRoleBindingName(s.namespace, s.chartName);
  const fallback = fallbackClusterRoleBindingName(s.namespace, s.chartName);
  if (s.labelled.includes(seedName)) return seedName;
  if (s.labelled.includes(fallback)) return fallback;
  return s.seed === 'foreign' ? fallback : seedName;
}
