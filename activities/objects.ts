import type { KubernetesObject } from '@kubernetes/client-node';
import { PatchStrategy } from '../src/kube/k8s.js';
import { Reason } from '../src/api/reasons.js';
import { notOwnedMessage, ownershipOf, type ChartIdentity, type Ownership } from '../src/build/ownership.js';
import { isNotFound } from '../src/kube/client.js';
import { retryOnConflict } from '../src/kube/retry-on-conflict.js';
import { FIELD_MANAGER, type ActivityDeps } from './deps.js';
import { permanentFailure } from './failures.js';

/** Server-side apply: creates or converges the object in one idempotent call. */
export async function apply(deps: ActivityDeps, object: KubernetesObject): Promise<void> {
  await deps.objects.patch(object, undefined, undefined, FIELD_MANAGER, true, PatchStrategy.ServerSideApply);
}

/** The object as the apiserver has it now; undefined when absent. */
export async function readObject(deps: ActivityDeps, object: KubernetesObject): Promise<KubernetesObject | undefined> {
  try {
    return await deps.objects.read({
      apiVersion: object.apiVersion ?? '',
      kind: object.kind ?? '',
      metadata: { name: object.metadata?.name ?? '', namespace: object.metadata?.namespace },
    });
  } catch (err) {
    if (isNotFound(err)) return undefined;
    throw err;
  }
}

export type Claim = { claimed: true } | { claimed: false; found: KubernetesObject };

/**
 * Creates `desired` when absent, or converges it when it is this chart's (or its predecessor's, or k3s's for this
 * chart, see ownershipOf);
 * an object of that name that is someone else's is left exactly as it is. Race-safe: a create that loses a race
 * reads again, and the apply carries the resourceVersion whose labels were checked, so it lands on nothing else.
 */
export async function claim(deps: ActivityDeps, desired: KubernetesObject, chart: ChartIdentity): Promise<Claim> {
  return retryOnConflict(`${desired.kind} ${desired.metadata?.name}`, async (): Promise<Claim> => {
    const found = await readObject(deps, desired);
    if (found === undefined) {
      // A create that loses a race is a conflict: the next round reads the winner.
      await deps.objects.create(desired, undefined, undefined, FIELD_MANAGER);
      return { claimed: true };
    }
    if (ownershipOf(found.metadata, chart) === 'foreign') return { claimed: false, found };
    const guarded = structuredClone(desired);
    (guarded.metadata ??= {}).resourceVersion = found.metadata?.resourceVersion;
    await apply(deps, guarded);
    return { claimed: true };
  });
}

/** claim, or the permanent failure ObjectNotOwned naming the object and how to resolve it. */
export async function claimOrFail(deps: ActivityDeps, desired: KubernetesObject, chart: ChartIdentity): Promise<void> {
  const result = await claim(deps, desired, chart);
  if (result.claimed) return;
  const object = {
    kind: desired.kind ?? 'object',
    namespace: desired.metadata?.namespace,
    name: desired.metadata?.name ?? '',
  };
  throw permanentFailure(Reason.ObjectNotOwned, notOwnedMessage(object, result.found.metadata?.labels, chart));
}

/** Who holds an object of that name now. */
export async function holderOf(
  deps: ActivityDeps,
  object: KubernetesObject,
  chart: ChartIdentity,
): Promise<Ownership | 'absent'> {
  const found = await readObject(deps, object);
  return found === undefined ? 'absent' : ownershipOf(found.metadata, chart);
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
    const found = await readObject(deps, object);
    if (found === undefined || !owned(found)) return;
    await deps.objects.delete(found, undefined, undefined, undefined, undefined, 'Background', {
      preconditions: { uid: found.metadata?.uid },
    });
  } catch (err) {
    if (!isNotFound(err)) throw err;
  }
}
