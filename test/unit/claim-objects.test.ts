import type { KubernetesObject } from '@kubernetes/client-node';
import { ApplicationFailure } from '@temporalio/common';
import pino from 'pino';
import type { ActivityDeps } from '../../activities/deps.js';
import { claim, claimOrFail, deleteIfOwned } from '../../activities/objects.js';
import { uidLabelKey } from '../../src/build/labels.js';
import type { ChartIdentity } from '../../src/build/ownership.js';
import { apiError } from './support/api-error.js';

const chart: ChartIdentity = { group: 'helm.k3sm.io', namespace: 'apps', name: 'podinfo', uid: 'uid-of-podinfo' };
const uidLabel = uidLabelKey('helm.k3sm.io');
const desired: KubernetesObject = {
  apiVersion: 'v1',
  kind: 'ServiceAccount',
  metadata: { name: 'helm-podinfo', namespace: 'apps', labels: { [uidLabel]: chart.uid } },
};
const ours = (resourceVersion: string): KubernetesObject => {
  const found = structuredClone(desired);
  found.metadata ??= {};
  found.metadata.resourceVersion = resourceVersion;
  found.metadata.uid = 'sa-uid';
  return found;
};
const users = (resourceVersion: string): KubernetesObject => ({
  apiVersion: 'v1',
  kind: 'ServiceAccount',
  metadata: { name: 'helm-podinfo', namespace: 'apps', resourceVersion, labels: { team: 'web' } },
});

/**
 * The object as the apiserver would answer each call in turn: `reads` are what each read finds (undefined:
 * absent), and `create` / `apply` say whether that call is refused with a conflict.
 */
function fakeObjects(reads: (KubernetesObject | undefined)[], refuse: { create?: number; apply?: number } = {}) {
  const seen = { creates: 0, applies: [] as (string | undefined)[], deletes: [] as unknown[] };
  let createConflicts = refuse.create ?? 0;
  let applyConflicts = refuse.apply ?? 0;
  const deps = {
    log: pino({ level: 'silent' }),
    objects: {
      read: async () => {
        const found = reads.length > 1 ? reads.shift() : reads[0];
        if (found === undefined) throw apiError(404);
        return structuredClone(found);
      },
      create: async () => {
        seen.creates += 1;
        if (createConflicts-- > 0) throw apiError(409);
        return desired;
      },
      patch: async (object: KubernetesObject) => {
        seen.applies.push(object.metadata?.resourceVersion);
        if (applyConflicts-- > 0) throw apiError(409);
        return object;
      },
      delete: async (...args: unknown[]) => {
        seen.deletes.push(args);
        return {};
      },
    },
  } as unknown as ActivityDeps;
  return { deps, seen };
}

describe('claim: create what is absent, converge what is this chart’s, never touch what is not', () => {
  it('creates an absent object', async () => {
    const { deps, seen } = fakeObjects([undefined]);
    await expect(claim(deps, desired, chart)).resolves.toEqual({ claimed: true });
    expect(seen).toMatchObject({ creates: 1, applies: [] });
  });

  it('applies over its own object, carrying the resourceVersion whose labels it checked', async () => {
    const { deps, seen } = fakeObjects([ours('7')]);
    await expect(claim(deps, desired, chart)).resolves.toEqual({ claimed: true });
    expect(seen).toMatchObject({ creates: 0, applies: ['7'] });
  });

  it('leaves a user’s object of that name exactly as it is', async () => {
    const { deps, seen } = fakeObjects([users('3')]);
    await expect(claim(deps, desired, chart)).resolves.toEqual({ claimed: false, found: users('3') });
    expect(seen).toMatchObject({ creates: 0, applies: [] });
  });

  it('reads again when its create loses a race, and leaves the winner alone when it is a user’s', async () => {
    const { deps, seen } = fakeObjects([undefined, users('4')], { create: 1 });
    await expect(claim(deps, desired, chart)).resolves.toMatchObject({ claimed: false });
    expect(seen).toMatchObject({ creates: 1, applies: [] });
  });

  it('reads again when the object changed between its read and its apply', async () => {
    const { deps, seen } = fakeObjects([ours('7'), ours('8')], { apply: 1 });
    await expect(claim(deps, desired, chart)).resolves.toEqual({ claimed: true });
    expect(seen.applies).toEqual(['7', '8']);
  });

  it('gives up after five conflicts in a row, so Temporal retries the step', async () => {
    const { deps } = fakeObjects([ours('7')], { apply: 5 });
    await expect(claim(deps, desired, chart)).rejects.toThrow('ServiceAccount helm-podinfo kept changing; will retry');
  });

  it('claimOrFail: a user’s object is the permanent failure ObjectNotOwned, naming it and what to do', async () => {
    const { deps } = fakeObjects([users('3')]);
    const failure = await claimOrFail(deps, desired, chart).then(
      () => undefined,
      (err: unknown) => err,
    );
    expect(failure).toBeInstanceOf(ApplicationFailure);
    expect(failure).toMatchObject({ type: 'ObjectNotOwned', nonRetryable: true });
    expect((failure as ApplicationFailure).message).toContain(
      "ServiceAccount apps/helm-podinfo already exists and is not HelmChart apps/podinfo's",
    );
  });
});

describe('deleteIfOwned', () => {
  const owned = (found: KubernetesObject) => found.metadata?.labels?.[uidLabel] === chart.uid;

  it('deletes its own object, on the condition that it is still the object it read (its uid)', async () => {
    const { deps, seen } = fakeObjects([ours('7')]);
    await deleteIfOwned(deps, desired, owned);
    expect(seen.deletes).toHaveLength(1);
    expect(seen.deletes[0]).toEqual(expect.arrayContaining([{ preconditions: { uid: 'sa-uid' } }]));
  });

  it('leaves another’s object, and takes an absent one as done', async () => {
    const theirs = fakeObjects([users('3')]);
    await deleteIfOwned(theirs.deps, desired, owned);
    const absent = fakeObjects([undefined]);
    await deleteIfOwned(absent.deps, desired, owned);
    expect([...theirs.seen.deletes, ...absent.seen.deletes]).toEqual([]);
  });
});
