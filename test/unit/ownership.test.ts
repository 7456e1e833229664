import { chooseBindingName, fallbackClusterRoleBindingName } from '../../src/build/binding-name.js';
import { clusterRoleBindingName } from '../../src/build/names.js';
import { notOwnedMessage, ownershipOf, type OwnedMetadata, type Ownership } from '../../src/build/ownership.js';

const group = 'helm.k3sm.io';
const chart = { group, namespace: 'apps', name: 'x', uid: 'uid-x' } as const;
const made = (labels: Record<string, string>) => ({ 'app.kubernetes.io/managed-by': 'helmflow', ...labels });

describe('ownershipOf: whose an existing object of a derived name is', () => {
  const cases: [string, Record<string, string> | undefined, Ownership][] = [
    ['no labels at all (a user made it)', undefined, 'foreign'],
    ['labels, none of helmflow', { app: 'mine' }, 'foreign'],
    ['this chart uid', made({ [`helmcharts.${group}/uid`]: 'uid-x', [`helmcharts.${group}/chart`]: 'x' }), 'mine'],
    [
      'an earlier chart of the same name (finalizer removed by hand)',
      made({ [`helmcharts.${group}/uid`]: 'uid-old', [`helmcharts.${group}/chart`]: 'x' }),
      'predecessor',
    ],
    [
      'another chart (its chart label differs)',
      made({ [`helmcharts.${group}/uid`]: 'uid-y', [`helmcharts.${group}/chart`]: 'b-x' }),
      'foreign',
    ],
    [
      'a binding of a chart of that name in another namespace',
      made({
        [`helmcharts.${group}/uid`]: 'uid-z',
        [`helmcharts.${group}/chart`]: 'x',
        [`helmcharts.${group}/namespace`]: 'other',
      }),
      'foreign',
    ],
    [
      'the chart label copied by a user, without helmflow as manager',
      { [`helmcharts.${group}/uid`]: 'uid-old', [`helmcharts.${group}/chart`]: 'x' },
      'foreign',
    ],
    [
      'the other API group labels (a helm.cattle.io chart)',
      made({ 'helmcharts.helm.cattle.io/uid': 'uid-x', 'helmcharts.helm.cattle.io/chart': 'x' }),
      'foreign',
    ],
  ];
  it.each(cases)('%s', (_name, labels, expected) => {
    expect(ownershipOf(labels === undefined ? undefined : { labels }, chart)).toBe(expected);
  });

  it('names the object and how to resolve it', () => {
    const message = notOwnedMessage({ kind: 'ServiceAccount', namespace: 'apps', name: 'helm-x' }, undefined, chart);
    expect(message).toContain('ServiceAccount apps/helm-x');
    expect(message).toContain(`no helmcharts.${group}/uid label`);
    expect(message).toMatch(/Delete or rename that ServiceAccount/u);
  });
});

describe('ownershipOf, serving helm.cattle.io: what k3s’s helm-controller made for this chart is adopted', () => {
  const cattle = { group: 'helm.cattle.io', namespace: 'apps', name: 'x', uid: 'uid-x' } as const;
  // What k3s v0.17.9 leaves on the ServiceAccount helm-x (read from a live one in test/e2e/k3s-adoption.test.ts).
  const k3sAnnotations = {
    'objectset.rio.cattle.io/id': 'helm-controller-chart-registration',
    'objectset.rio.cattle.io/owner-gvk': 'helm.cattle.io/v1, Kind=HelmChart',
    'objectset.rio.cattle.io/owner-name': 'x',
    'objectset.rio.cattle.io/owner-namespace': 'apps',
  };
  const k3sLabels = { 'objectset.rio.cattle.io/hash': '63b0db29e8c733076e162c0151c571dc3848444e' };
  const owner = (uid: string) => ({ apiVersion: 'helm.cattle.io/v1', kind: 'HelmChart', uid });
  const cases: [string, OwnedMetadata | undefined, Ownership][] = [
    [
      'k3s’s, owner reference to this chart',
      { labels: k3sLabels, annotations: k3sAnnotations, ownerReferences: [owner('uid-x')] },
      'k3s',
    ],
    ['k3s’s cluster-scoped binding (annotations only)', { labels: k3sLabels, annotations: k3sAnnotations }, 'k3s'],
    [
      'k3s’s, for an earlier chart of this name (other uid)',
      { annotations: k3sAnnotations, ownerReferences: [owner('uid-old')] },
      'foreign',
    ],
    [
      'k3s’s, for a chart of another name',
      { annotations: { ...k3sAnnotations, 'objectset.rio.cattle.io/owner-name': 'b-x' } },
      'foreign',
    ],
    [
      'k3s’s, for a chart of that name in another namespace',
      { annotations: { ...k3sAnnotations, 'objectset.rio.cattle.io/owner-namespace': 'other' } },
      'foreign',
    ],
    [
      'wrangler-applied for something else (another owner kind)',
      { annotations: { ...k3sAnnotations, 'objectset.rio.cattle.io/owner-gvk': 'apps/v1, Kind=Deployment' } },
      'foreign',
    ],
    ['a user’s object of that name', { labels: { app: 'mine' } }, 'foreign'],
    [
      'a user’s object merely owned by this chart (no k3s annotations)',
      { ownerReferences: [owner('uid-x')] },
      'foreign',
    ],
    [
      'adopted already: helmflow’s uid label wins',
      { labels: { 'helmcharts.helm.cattle.io/uid': 'uid-x' }, annotations: k3sAnnotations },
      'mine',
    ],
    [
      'another chart’s by helmflow’s uid label, whatever k3s’s annotations say',
      { labels: { 'helmcharts.helm.cattle.io/uid': 'uid-y' }, annotations: k3sAnnotations },
      'foreign',
    ],
  ];
  it.each(cases)('%s', (_name, metadata, expected) => {
    expect(ownershipOf(metadata, cattle)).toBe(expected);
  });

  it('never adopts k3s’s objects for helmflow’s own group (a helm.k3sm.io chart of the same name)', () => {
    expect(ownershipOf({ annotations: k3sAnnotations, ownerReferences: [owner('uid-x')] }, chart)).toBe('foreign');
  });
});

describe('the ClusterRoleBinding name', () => {
  it('the seed name collides for namespace a-b chart c and namespace a chart b-c; the fallbacks do not', () => {
    expect(clusterRoleBindingName('a-b', 'c')).toBe(clusterRoleBindingName('a', 'b-c'));
    const one = fallbackClusterRoleBindingName('a-b', 'c');
    const other = fallbackClusterRoleBindingName('a', 'b-c');
    expect(one).not.toBe(other);
    expect(one).toMatch(/^helm-a-b-c-[0-9a-f]{8}$/u);
    expect(fallbackClusterRoleBindingName('a-b', 'c')).toBe(one);
  });

  const seed = 'helm-a-b-c';
  const fallback = fallbackClusterRoleBindingName('a', 'b-c');
  const cases: [string, string[], Ownership | 'absent', string][] = [
    ['free: the seed name', [], 'absent', seed],
    ['already this chart: the seed name', [seed], 'mine', seed],
    ['left by an earlier chart of this name: the seed name', [], 'predecessor', seed],
    ['made by k3s for this chart: the seed name', [], 'k3s', seed],
    ['held by the colliding chart: the fallback', [], 'foreign', fallback],
    [
      'this chart holds the fallback already: keeps it even when the seed is free again',
      [fallback],
      'absent',
      fallback,
    ],
    ['both labelled: the seed name', [fallback, seed], 'mine', seed],
  ];
  it.each(cases)('%s', (_name, labelled, holder, expected) => {
    expect(chooseBindingName({ namespace: 'a', chartName: 'b-c', labelled, seed: holder })).toBe(expected);
  });
});
