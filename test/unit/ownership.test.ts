import { chooseBindingName, fallbackClusterRoleBindingName } from '../../src/build/binding-name.js';
import { clusterRoleBindingName } from '../../src/build/names.js';
import { notOwnedMessage, ownershipOf, type Ownership } from '../../src/build/ownership.js';

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
    expect(ownershipOf(labels, chart)).toBe(expected);
  });

  it('names the object and how to resolve it', () => {
    const message = notOwnedMessage({ kind: 'ServiceAccount', namespace: 'apps', name: 'helm-x' }, undefined, chart);
    expect(message).toContain('ServiceAccount apps/helm-x');
    expect(message).toContain(`no helmcharts.${group}/uid label`);
    expect(message).toMatch(/Delete or rename that ServiceAccount/u);
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
