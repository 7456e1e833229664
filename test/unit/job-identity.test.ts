import type { KubernetesObject } from '@kubernetes/client-node';
import pino from 'pino';
import type { ActivityDeps } from '../../activities/deps.js';
import { ensureJobIdentity } from '../../activities/identity.js';
import { fallbackClusterRoleBindingName } from '../../src/build/binding-name.js';
import { buildDelete } from '../../src/build/index.js';
import { uidLabelKey } from '../../src/build/labels.js';
import { helmChart, tinyChartContent } from './support/charts.js';
import { apiError } from './support/api-error.js';

// Namespace a-b, chart c: its binding helm-a-b-c is also what namespace a, chart b-c would name theirs.
const chart = helmChart({ chartContent: tinyChartContent }, { namespace: 'a-b', name: 'c', uid: 'uid-of-c' });
const objects = buildDelete(chart, { group: 'helm.k3sm.io', digestKey: new Uint8Array(32) });
const uidLabel = uidLabelKey('helm.k3sm.io');
const fallback = fallbackClusterRoleBindingName('a-b', 'c');

/**
 * The cluster's objects by kind/name. A create of a name that exists is refused with 409; `takenBeforeCreate`
 * names objects another client creates in the instant between this one's read and its create.
 */
function fakeCluster(present: KubernetesObject[] = [], takenBeforeCreate: KubernetesObject[] = []) {
  const stored = new Map(present.map((o) => [`${o.kind}/${o.metadata?.name}`, o]));
  const written: string[] = [];
  const keyOf = (o: KubernetesObject) => `${o.kind}/${o.metadata?.name}`;
  const deps = {
    group: 'helm.k3sm.io',
    log: pino({ level: 'silent' }),
    rbac: {
      listClusterRoleBinding: async ({ labelSelector }: { labelSelector: string }) => ({
        items: [...stored.values()].filter(
          (o) => o.kind === 'ClusterRoleBinding' && `${uidLabel}=${o.metadata?.labels?.[uidLabel]}` === labelSelector,
        ),
      }),
    },
    objects: {
      read: async (o: KubernetesObject) => {
        const found = stored.get(keyOf(o));
        if (found === undefined) throw apiError(404);
        const copy = structuredClone(found);
        (copy.metadata ??= {}).resourceVersion = '1';
        return copy;
      },
      create: async (o: KubernetesObject) => {
        const racer = takenBeforeCreate.find((t) => keyOf(t) === keyOf(o));
        if (racer !== undefined) stored.set(keyOf(o), racer);
        if (stored.has(keyOf(o))) throw apiError(409);
        stored.set(keyOf(o), o);
        written.push(`create ${keyOf(o)}`);
        return o;
      },
      patch: async (o: KubernetesObject) => {
        stored.set(keyOf(o), o);
        written.push(`apply ${keyOf(o)}`);
        return o;
      },
    },
  } as unknown as ActivityDeps;
  return { deps, written };
}

/** A binding of that name that namespace a's chart b-c made (another uid). */
const othersBinding: KubernetesObject = {
  apiVersion: 'rbac.authorization.k8s.io/v1',
  kind: 'ClusterRoleBinding',
  metadata: { name: 'helm-a-b-c', labels: { [uidLabel]: 'uid-of-b-c', 'app.kubernetes.io/managed-by': 'helmflow' } },
};

describe("ensureJobIdentity: the chart's ServiceAccount and its binding, never another's", () => {
  it("creates both, the binding under the seed's name when it is free", async () => {
    const { deps, written } = fakeCluster();
    await ensureJobIdentity(deps, chart, objects);
    expect(written).toEqual(['create ServiceAccount/helm-c', 'create ClusterRoleBinding/helm-a-b-c']);
  });

  it.each([
    ['holds the seed’s name', [othersBinding], []],
    ['takes the seed’s name in the same instant', [], [othersBinding]],
  ])('takes the fallback name when another chart %s', async (_, present, takenBeforeCreate) => {
    const { deps, written } = fakeCluster(present, takenBeforeCreate);
    await ensureJobIdentity(deps, chart, objects);
    expect(written).toEqual(['create ServiceAccount/helm-c', `create ClusterRoleBinding/${fallback}`]);
  });

  it('keeps the name it already holds, found by its uid label', async () => {
    const mine: KubernetesObject = {
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'ClusterRoleBinding',
      metadata: { name: fallback, labels: { [uidLabel]: 'uid-of-c' } },
    };
    const { deps, written } = fakeCluster([mine]);
    await ensureJobIdentity(deps, chart, objects);
    expect(written).toEqual(['create ServiceAccount/helm-c', `apply ClusterRoleBinding/${fallback}`]);
  });

  it("binds nothing when a user's ServiceAccount holds the name: ObjectNotOwned", async () => {
    const users: KubernetesObject = {
      apiVersion: 'v1',
      kind: 'ServiceAccount',
      metadata: { name: 'helm-c', namespace: 'a-b' },
    };
    const { deps, written } = fakeCluster([users]);
    await expect(ensureJobIdentity(deps, chart, objects)).rejects.toMatchObject({ type: 'ObjectNotOwned' });
    expect(written).toEqual([]);
  });
});
