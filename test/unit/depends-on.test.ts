import { DEPENDS_ON_ANNOTATION, dependsOn, type HelmChart } from '../../src/api/index.js';
import { cycleThrough, dependencyHold, isInstalled } from '../../src/controller/dependencies.js';
import { Dependents } from '../../src/controller/dependents.js';

describe('dependsOn (the annotation)', () => {
  it.each<[string, string | undefined, ReturnType<typeof dependsOn>]>([
    ['no annotation', undefined, { charts: [] }],
    ['an empty value', '', { charts: [] }],
    ['a name alone is in the chart’s namespace', 'postgres', { charts: [{ namespace: 'apps', name: 'postgres' }] }],
    [
      'namespace/name, spaces and repeats ignored, sorted',
      ' db/redis , db/postgres,db/redis,',
      {
        charts: [
          { namespace: 'db', name: 'postgres' },
          { namespace: 'db', name: 'redis' },
        ],
      },
    ],
    [
      'entries that are not chart references are named',
      'db/Postgres,a/b/c,ok',
      {
        invalid: `${DEPENDS_ON_ANNOTATION}: "db/Postgres", "a/b/c" are not HelmChart references (<namespace>/<name> or <name>, comma-separated)`,
      },
    ],
    [
      'an empty namespace',
      '/postgres',
      { invalid: expect.stringContaining('"/postgres" is not a HelmChart reference') as string },
    ],
  ])('%s', (_what, value, expected) => {
    const annotations = value === undefined ? undefined : { [DEPENDS_ON_ANNOTATION]: value };
    expect(dependsOn(annotations, 'apps')).toEqual(expected);
  });
});

const chart = (key: string, dependsOnValue?: string, status?: HelmChart['status'], deleting = false): HelmChart => {
  const [namespace = '', name = ''] = key.split('/');
  return {
    apiVersion: 'helm.k3sm.io/v1',
    kind: 'HelmChart',
    metadata: {
      name,
      namespace,
      uid: `uid-${key}`,
      generation: 2,
      ...(dependsOnValue === undefined ? {} : { annotations: { [DEPENDS_ON_ANNOTATION]: dependsOnValue } }),
      ...(deleting ? { deletionTimestamp: '2026-01-01T00:00:00Z' } : {}),
    },
    spec: { chart: name, repo: 'https://charts.example.com' },
    ...(status === undefined ? {} : { status }),
  };
};
const installed = { phase: 'Installed', observedGeneration: 2 } as HelmChart['status'];
const lookupOf = (...charts: HelmChart[]) => {
  const byKey = new Map(charts.map((c) => [`${c.metadata.namespace}/${c.metadata.name}`, c]));
  return (key: { namespace: string; name: string }) => byKey.get(`${key.namespace}/${key.name}`);
};

describe('isInstalled (a dependency a chart may build on)', () => {
  it.each<[string, HelmChart | undefined, boolean]>([
    ['absent', undefined, false],
    ['Installed at its generation', chart('db/a', undefined, installed), true],
    [
      'Installed at an older generation (an upgrade is due)',
      chart('db/a', undefined, { ...installed, observedGeneration: 1 }),
      false,
    ],
    ['Installing', chart('db/a', undefined, { phase: 'Installing', observedGeneration: 2 }), false],
    ['Installed but being deleted', chart('db/a', undefined, installed, true), false],
  ])('%s → %s', (_what, dependency, expected) => {
    expect(isInstalled(dependency)).toBe(expected);
  });
});

describe('dependencyHold', () => {
  it.each<[string, HelmChart, HelmChart[], ReturnType<typeof dependencyHold>]>([
    ['no annotation: nothing holds', chart('apps/web'), [], undefined],
    [
      'every dependency installed',
      chart('apps/web', 'db/a,b'),
      [chart('db/a', undefined, installed), chart('apps/b', undefined, installed)],
      undefined,
    ],
    [
      'waits for those not installed, naming the absent ones',
      chart('apps/web', 'db/a,db/b,db/c'),
      [chart('db/a', undefined, installed), chart('db/b', undefined, { phase: 'Installing' })],
      { reason: 'DependenciesNotReady', message: 'waiting for db/b, db/c (not found) to be installed' },
    ],
    [
      'a malformed annotation is refused',
      chart('apps/web', 'db/A'),
      [],
      { reason: 'InvalidDependsOn', message: expect.stringContaining('"db/A" is not a HelmChart reference') as string },
    ],
    [
      'itself',
      chart('apps/web', 'web'),
      [],
      { reason: 'DependencyCycle', message: expect.stringContaining('apps/web → apps/web') as string },
    ],
    [
      'a cycle through the chart, named in order',
      chart('apps/a', 'b'),
      [chart('apps/b', 'c', installed), chart('apps/c', 'a')],
      { reason: 'DependencyCycle', message: expect.stringContaining(': apps/a → apps/b → apps/c → apps/a') as string },
    ],
    [
      'a cycle further along only makes it wait',
      chart('apps/web', 'b'),
      [chart('apps/b', 'c'), chart('apps/c', 'b')],
      { reason: 'DependenciesNotReady', message: 'waiting for apps/b to be installed' },
    ],
  ])('%s', (_what, subject, others, expected) => {
    expect(dependencyHold(subject, lookupOf(subject, ...others))).toEqual(expected);
  });

  it('follows a long chain once per chart (a diamond does not explode)', () => {
    const charts = Array.from({ length: 40 }, (_, i) =>
      chart(`n/c${String(i)}`, i < 39 ? `c${String(i + 1)},c${String(Math.min(i + 2, 39))}` : undefined),
    );
    const [first] = charts;
    if (first === undefined) throw new Error('no chart');
    expect(cycleThrough(first, lookupOf(...charts))).toBeUndefined();
  });
});

describe('Dependents (which charts to decide again when one changes)', () => {
  it('finds direct and indirect dependents, forgets edges that are gone, and ends on cycles', () => {
    const d = new Dependents();
    d.set('n/web', ['n/api']);
    d.set('n/api', ['n/db']);
    d.set('n/worker', ['n/db']);
    expect(d.of('n/db').sort()).toEqual(['n/api', 'n/web', 'n/worker']);
    d.set('n/api', []);
    expect(d.of('n/db')).toEqual(['n/worker']);
    expect(d.of('n/api')).toEqual(['n/web']);
    d.set('n/db', ['n/web']);
    d.set('n/api', ['n/db']);
    expect(d.of('n/db').sort()).toEqual(['n/api', 'n/web', 'n/worker']);
  });
});
