import type { HelmChart, HelmChartConfig, SecretData } from '../../src/api/index.js';
import { desiredDigest, type BuildOptions } from '../../src/build/index.js';
import { helmChart, helmChartConfig, podinfoSpec } from './support/charts.js';

interface State {
  chart: HelmChart;
  config: HelmChartConfig | undefined;
  secrets: SecretData;
  options?: BuildOptions;
}

function base(): State {
  return {
    chart: helmChart({
      ...podinfoSpec,
      valuesSecrets: [
        { name: 'watched', keys: ['a', 'b'] },
        { name: 'ignored', keys: ['x'], ignoreUpdates: true },
      ],
    }),
    config: helmChartConfig({
      valuesContent: 'overlay: 1\n',
      valuesSecrets: [{ name: 'overlay', keys: ['o'] }],
    }),
    secrets: { watched: { a: 'a: 1', b: 'b: 1', unread: 'u' }, ignored: { x: 'x: 1' }, overlay: { o: 'o: 1' } },
  };
}

const digestOf = (s: State): string => desiredDigest(s.chart, s.config, s.secrets, s.options);

const changes: [string, (s: State) => void][] = [
  ['a spec field (version)', (s) => (s.chart.spec.version = '6.7.2')],
  ['valuesContent', (s) => (s.chart.spec.valuesContent = 'replicaCount: 2\n')],
  ['values', (s) => (s.chart.spec.values = { a: 1 })],
  ['a set value', (s) => (s.chart.spec.set = { 'ui.message': 'bye' })],
  ['a set value from integer to string', (s) => (s.chart.spec.set = { n: '1' })],
  ['timeout', (s) => (s.chart.spec.timeout = '10m')],
  ['backOffLimit', (s) => (s.chart.spec.backOffLimit = 3)],
  ['backOffLimit to 0', (s) => (s.chart.spec.backOffLimit = 0)],
  ['failurePolicy', (s) => (s.chart.spec.failurePolicy = 'abort')],
  ['takeOwnership', (s) => (s.chart.spec.takeOwnership = true)],
  ['bootstrap', (s) => (s.chart.spec.bootstrap = true)],
  ['jobImage', (s) => (s.chart.spec.jobImage = 'mine/helm:1')],
  ['the operator default image (spec.jobImage empty)', (s) => (s.options = { jobImage: 'registry.local/helm:4' })],
  ['chartContent', (s) => (s.chart.spec.chartContent = 'AAAA')],
  ['podSecurityContext', (s) => (s.chart.spec.podSecurityContext = { runAsUser: 1 })],
  ['the valuesSecrets list', (s) => (s.chart.spec.valuesSecrets = [{ name: 'watched', keys: ['b', 'a'] }])],
  ['a read key of a watched Secret', (s) => (s.secrets = { ...s.secrets, watched: { a: 'a: 2', b: 'b: 1' } })],
  ['a watched Secret disappearing', (s) => (s.secrets = { ignored: { x: 'x: 1' }, overlay: { o: 'o: 1' } })],
  ["the HelmChartConfig's valuesContent", (s) => (s.config = helmChartConfig({ valuesContent: 'overlay: 2\n' }))],
  ["the HelmChartConfig's values", (s) => s.config?.spec && (s.config.spec.values = { v: 1 })],
  ["the HelmChartConfig's failurePolicy", (s) => s.config?.spec && (s.config.spec.failurePolicy = 'abort')],
  ["the HelmChartConfig's forceConflicts", (s) => s.config?.spec && (s.config.spec.forceConflicts = true)],
  [
    "the HelmChartConfig's forceConflicts set to false",
    (s) => s.config?.spec && (s.config.spec.forceConflicts = false),
  ],
  ["the HelmChartConfig's serverSide", (s) => s.config?.spec && (s.config.spec.serverSide = 'true')],
  ["a read key of the HelmChartConfig's Secret", (s) => (s.secrets = { ...s.secrets, overlay: { o: 'o: 2' } })],
  ['the HelmChartConfig appearing', (s) => (s.config = undefined)],
  [
    'the annotation <group>/preflight: skip (it removes pre-flight from the Job)',
    (s) => (s.chart.metadata = { ...s.chart.metadata, annotations: { 'helm.k3sm.io/preflight': 'skip' } }),
  ],
  [
    "the annotation <group>/wait: legacy (it changes the Job's helm command line)",
    (s) => (s.chart.metadata = { ...s.chart.metadata, annotations: { 'helm.k3sm.io/wait': 'legacy' } }),
  ],
  [
    'a <group>/wait annotation that is refused (mending it must look like a change)',
    (s) => (s.chart.metadata = { ...s.chart.metadata, annotations: { 'helm.k3sm.io/wait': 'lgacy' } }),
  ],
  [
    'a <group>/preflight annotation that is refused (neither run nor skip)',
    (s) => (s.chart.metadata = { ...s.chart.metadata, annotations: { 'helm.k3sm.io/preflight': 'yes' } }),
  ],
  [
    'a <group>/crds annotation that is refused (neither report nor apply)',
    (s) => (s.chart.metadata = { ...s.chart.metadata, annotations: { 'helm.k3sm.io/crds': 'aply' } }),
  ],
];

const keeps: [string, (s: State) => void][] = [
  [
    'metadata labels and annotations',
    (s) => (s.chart.metadata = { ...s.chart.metadata, labels: { a: 'b' }, annotations: { c: 'd' } }),
  ],
  [
    'the annotation <group>/crds: apply (read by the worker; it changes nothing in the Job)',
    (s) => (s.chart.metadata = { ...s.chart.metadata, annotations: { 'helm.k3sm.io/crds': 'apply' } }),
  ],
  [
    "the annotation <group>/crds: report (the default's own name)",
    (s) => (s.chart.metadata = { ...s.chart.metadata, annotations: { 'helm.k3sm.io/crds': 'report' } }),
  ],
  [
    "the annotation <group>/preflight: run (the default's own name, the Job without it)",
    (s) => (s.chart.metadata = { ...s.chart.metadata, annotations: { 'helm.k3sm.io/preflight': 'run' } }),
  ],
  [
    "the annotation <group>/wait: watcher (helm 4's default, the Job without it)",
    (s) => (s.chart.metadata = { ...s.chart.metadata, annotations: { 'helm.k3sm.io/wait': 'watcher' } }),
  ],
  [
    'the generation and resourceVersion',
    (s) => (s.chart.metadata = { ...s.chart.metadata, generation: 7, resourceVersion: '99' }),
  ],
  ['the status', (s) => (s.chart.status = { jobName: 'helm-install-podinfo' })],
  ['failurePolicy set to its default', (s) => (s.chart.spec.failurePolicy = 'reinstall')],
  ['driver set to its default', (s) => (s.chart.spec.driver = 'secret')],
  [
    'false booleans k3s omits',
    (s) => Object.assign(s.chart.spec, { bootstrap: false, takeOwnership: false, forceConflicts: false }),
  ],
  ['empty strings k3s omits', (s) => Object.assign(s.chart.spec, { jobImage: '', helmVersion: '', chartContent: '' })],
  ['empty values and an empty list of values Secrets', (s) => Object.assign(s.chart.spec, { values: {} })],
  ['spec key order', (s) => (s.chart.spec = Object.fromEntries(Object.entries(s.chart.spec).reverse()))],
  ['data of an ignoreUpdates Secret', (s) => (s.secrets = { ...s.secrets, ignored: { x: 'x: 2' } })],
  [
    'an unread key of a watched Secret',
    (s) => (s.secrets = { ...s.secrets, watched: { a: 'a: 1', b: 'b: 1', unread: 'v' } }),
  ],
  ['an unrelated Secret', (s) => (s.secrets = { ...s.secrets, other: { k: 'v' } })],
  ['HelmChartConfig metadata', (s) => s.config && (s.config.metadata = { ...s.config.metadata, labels: { x: 'y' } })],
];

describe('desiredDigest', () => {
  it('is a stable sha256', () => {
    expect(digestOf(base())).toMatch(/^[0-9a-f]{64}$/u);
    expect(digestOf(base())).toBe(digestOf(base()));
  });

  it('is keyed: the same state under another key gives another digest, so it cannot be recomputed without it', () => {
    const keyed = (key: string) => {
      const s = base();
      s.options = { ...s.options, digestKey: Buffer.from(key) };
      return digestOf(s);
    };
    expect(keyed('one key')).toBe(keyed('one key'));
    expect(keyed('one key')).not.toBe(keyed('another key'));
    expect(keyed('one key')).not.toBe(digestOf(base()));
  });

  it.each(changes)('changes with %s', (_, change) => {
    const s = base();
    change(s);
    expect(digestOf(s)).not.toBe(digestOf(base()));
  });

  it.each(keeps)('does not change with %s', (_, change) => {
    const s = base();
    change(s);
    expect(digestOf(s)).toBe(digestOf(base()));
  });

  it.each([
    ['preflight', 'Skip', ['run', 'skip']],
    ['crds', 'aply', ['report', 'apply']],
    ['wait', 'lgacy', ['watcher', 'legacy']],
  ])('sees mending a refused <group>/%s (%j) to any of its values, or removing it, as a change', (name, bad, good) => {
    const annotated = (value: string | undefined) => {
      const s = base();
      if (value !== undefined)
        s.chart.metadata = { ...s.chart.metadata, annotations: { [`helm.k3sm.io/${name}`]: value } };
      return digestOf(s);
    };
    for (const value of [undefined, ...good]) expect(annotated(value)).not.toBe(annotated(bad));
  });

  it('ignores the operator default image when spec.jobImage names one', () => {
    const s = base();
    s.chart.spec.jobImage = 'mine/helm:1';
    const before = digestOf(s);
    s.options = { jobImage: 'registry.local/helm:4' };
    expect(digestOf(s)).toBe(before);
  });

  it('treats a HelmChartConfig that sets nothing as no HelmChartConfig: helm would do the same', () => {
    const s = base();
    s.config = undefined;
    expect(digestOf({ ...s, config: helmChartConfig({}) })).toBe(digestOf(s));
    expect(digestOf({ ...s, config: helmChartConfig({ valuesContent: '', values: {} }) })).toBe(digestOf(s));
  });
});
