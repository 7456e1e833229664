import { PatchStrategy, type KubernetesObject } from '@kubernetes/client-node';
import { isNotFound } from '../src/kube/client.js';
import { FIELD_MANAGER, type ActivityDeps } from './deps.js';

/** Server-side apply: creates or converges the object in one idempotent call. */
export async function apply(deps: ActivityDeps, object: KubernetesObject): Promise<void> {
  await deps.objects.patch(object, undefined, undefined, FIELD_MANAGER, true, PatchStrategy.ServerSideApply);
}

/**
 * Deletes the object only if it still belongs to this chart (its uid label), so cleaning up after a deleted chart
 * never removes what a recreated chart of the same name owns. Absent is success.
 */
export async function deleteIfOwned(
  deps: ActivityDeps,
  object: KubernetesObject,
  owned: (found: KubernetesObject) => boolean,
): Promise<void> {
  try {
    const found = await deps.objects.read({
      apiVersion: object.apiVersion ?? '',
      kind: object.kind ?? '',
      metadata: { name: object.metadata?.name ?? '', namespace: object.metadata?.namespace },
    });
    if (!owned(found)) return;
    await deps.objects.delete(found, undefined, undefined, undefined, undefined, 'Background', {
      preconditions: { uid: found.metadata?.uid },
    });
  } catch (err) {
    if (!isNotFound(err)) throw err;
  }
}
