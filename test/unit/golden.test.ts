import { buildDelete, buildInstall, type InstallInput } from '../../src/build/index.js';
import { helmChart, helmChartConfig, podinfoSpec, tinyChartContent } from './support/charts.js';
import { expectGolden } from './support/golden.js';

/**
 * Whole manifests, reviewed once and compared byte for byte: any change to what a chart's objects look like
 * shows up here. UPDATE_GOLDEN=1 rewrites test/fixtures/golden after an intended change.
 */
const installs: [string, InstallInput][] = [
  ['install-podinfo-repo', { chart: helmChart(podinfoSpec) }],
  [
    'install-oci-with-config',
    {
      chart: helmChart({
        chart: 'oci://ghcr.io/stefanprodan/charts/podinfo',
        version: '6.7.1',
        valuesContent: 'replicaCount: 2\n',
        values: { ui: { color: '#34577c' } },
        valuesSecrets: [
          { name: 'podinfo-values', keys: ['base.yaml', 'prod.yaml'] },
          { name: 'optional-values', keys: ['extra.yaml'], ignoreUpdates: true },
        ],
        set: { replicaCount: 3, 'ui.message': 'a,b', 'ingress.enabled': 'true' },
        serverSide: 'auto',
        takeOwnership: true,
        timeout: '10m',
        backOffLimit: 5,
        driver: 'configmap',
      }),
      config: helmChartConfig({
        valuesContent: 'ui:\n  message: from config\n',
        valuesSecrets: [{ name: 'overlay-values', keys: ['overlay.yaml'] }],
        failurePolicy: 'abort',
        forceConflicts: true,
      }),
      secrets: {
        'podinfo-values': { 'base.yaml': 'logLevel: info\n', 'prod.yaml': 'logLevel: warn\n' },
        'overlay-values': { 'overlay.yaml': 'cache: redis\n' },
      },
    },
  ],
  ['install-url', { chart: helmChart({ chart: 'https://charts.example.com/podinfo-6.7.1.tgz', version: 'ignored' }) }],
  [
    'install-chart-content',
    {
      chart: helmChart({
        chartContent: tinyChartContent,
        chart: 'ignored',
        repo: 'https://ignored',
        targetNamespace: 'apps',
      }),
    },
  ],
  [
    'install-bootstrap',
    {
      chart: helmChart({
        chart: 'oci://registry.example.com/charts/cni',
        bootstrap: true,
        jobImage: 'registry.example.com/helm:4.3.0',
        podSecurityContext: { runAsNonRoot: true, runAsUser: 1000 },
        securityContext: { readOnlyRootFilesystem: true },
      }),
    },
  ],
];

describe('golden manifests', () => {
  it.each(installs)('%s', (name, input) => {
    const o = buildInstall(input);
    const objects: unknown[] = [o.serviceAccount, o.clusterRoleBinding, o.valuesSecret];
    if (o.chartContent !== undefined) objects.push(o.chartContent);
    objects.push(o.job);
    expectGolden(name, objects);
  });

  it('delete', () => {
    const o = buildDelete(helmChart({ ...podinfoSpec, timeout: '3m' }));
    expectGolden('delete-podinfo', [o.job]);
  });

  it('install-podinfo-repo for helm.cattle.io', () => {
    expectGolden('install-podinfo-repo-cattle', [
      buildInstall({ chart: helmChart(podinfoSpec) }, { group: 'helm.cattle.io' }).job,
    ]);
  });
});
