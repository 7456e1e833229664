import type { Informer, KubernetesObject } from '@kubernetes/client-node';

/**
 * Drops `metadata.managedFields` from every object the watch caches. helmflow never reads them, yet they are about
 * a third of a HelmChart's JSON as kubectl and helmflow leave it (a field set per writer), held for every chart for
 * as long as the process runs. The watch hands its add and update handlers the very object it caches, so trimming
 * it there trims the cache.
 */
export function withoutManagedFields<I extends Informer<KubernetesObject>>(informer: I): I {
  const trim = (obj: KubernetesObject) => {
    if (obj.metadata !== undefined) delete obj.metadata.managedFields;
  };
  informer.on('add', trim);
  informer.on('update', trim);
  return informer;
}
