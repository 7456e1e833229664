import type { HelmChartConfigSpec, HelmChartSpec } from '../../src/api/index.js';
import { buildInstall, type InstallInput } from '../../src/build/index.js';
import { helmChart, helmChartConfig, podinfoSpec, tinyChartContent } from './support/charts.js';
import { argsOf, flagValue, flagValues } from './support/job.js';

const oci = 'oci://ghcr.io/stefanprodan/charts/podinfo';

function args(spec: HelmChartSpec, config?: HelmChartConfigSpec, secrets: InstallInput['secrets'] = {}): string[] {
  const input: InstallInput = { chart: helmChart(spec), secrets };
  if (config !== undefined) input.config = helmChartConfig(config);
  return argsOf(buildInstall(input).job);
}

describe('install command line', () => {
  it("is exactly the README's command for the seed's podinfo example", () => {
    expect(args(podinfoSpec)).toEqual([
      'upgrade',
      '--install',
      'podinfo',
      'podinfo',
      '--namespace',
      'apps',
      '--create-namespace',
      '--repo',
      'https://stefanprodan.github.io/podinfo',
      '--version',
      '6.7.1',
      '--wait',
      '--timeout',
      '5m0s',
      '--values',
      'values/values-001-HelmChart-valuesContent.yaml',
      '--set-file',
      'ui.message=values/set-001',
    ]);
  });

  // [what, spec, config, flag, expected value (undefined: flag absent)]
  const flags: [string, HelmChartSpec, HelmChartConfigSpec | undefined, string, string | undefined][] = [
    ['target namespace defaults to the chart namespace', { chart: oci }, undefined, '--namespace', 'kube-system'],
    ['targetNamespace sets the namespace', { chart: oci, targetNamespace: 'apps' }, undefined, '--namespace', 'apps'],
    [
      'an empty targetNamespace means the chart namespace',
      { chart: oci, targetNamespace: '' },
      undefined,
      '--namespace',
      'kube-system',
    ],
    ['timeout defaults to 5m0s', { chart: oci }, undefined, '--timeout', '5m0s'],
    ['timeout is passed as written', { chart: oci, timeout: '10m' }, undefined, '--timeout', '10m'],
    [
      'repo sets --repo',
      { repo: 'https://charts.example.com', chart: 'c' },
      undefined,
      '--repo',
      'https://charts.example.com',
    ],
    [
      'version with repo',
      { repo: 'https://charts.example.com', chart: 'c', version: '1.2.3' },
      undefined,
      '--version',
      '1.2.3',
    ],
    ['version with an oci chart', { chart: oci, version: '6.7.1' }, undefined, '--version', '6.7.1'],
    [
      'no version for a chart URL (it names one archive)',
      { chart: 'https://x/c-1.0.0.tgz', version: '2.0.0' },
      undefined,
      '--version',
      undefined,
    ],
    ['no --repo without repo', { chart: oci }, undefined, '--repo', undefined],
  ];
  it.each(flags)('%s', (_, spec, config, flag, value) => {
    expect(flagValue(args(spec, config), flag)).toBe(value);
  });

  const switches: [string, HelmChartSpec, HelmChartConfigSpec | undefined, string, boolean][] = [
    ['--wait always', { chart: oci }, undefined, '--wait', true],
    ['createNamespace', { chart: oci, createNamespace: true }, undefined, '--create-namespace', true],
    ['no createNamespace', { chart: oci }, undefined, '--create-namespace', false],
    ['takeOwnership', { chart: oci, takeOwnership: true }, undefined, '--take-ownership', true],
    ['no takeOwnership', { chart: oci }, undefined, '--take-ownership', false],
    ['serverSide true', { chart: oci, serverSide: 'true' }, undefined, '--server-side=true', true],
    ['serverSide false', { chart: oci, serverSide: 'false' }, undefined, '--server-side=false', true],
    ['serverSide auto', { chart: oci, serverSide: 'auto' }, undefined, '--server-side=auto', true],
    ['no --server-side when unset (helm defaults to auto)', { chart: oci }, undefined, '--server-side=auto', false],
    [
      'HelmChartConfig serverSide wins',
      { chart: oci, serverSide: 'true' },
      { serverSide: 'false' },
      '--server-side=false',
      true,
    ],
    ['forceConflicts', { chart: oci, forceConflicts: true }, undefined, '--force-conflicts', true],
    ['no forceConflicts', { chart: oci }, undefined, '--force-conflicts', false],
    [
      'forceConflicts dropped with serverSide false',
      { chart: oci, forceConflicts: true, serverSide: 'false' },
      undefined,
      '--force-conflicts',
      false,
    ],
    ['HelmChartConfig forceConflicts true wins', { chart: oci }, { forceConflicts: true }, '--force-conflicts', true],
    [
      'HelmChartConfig forceConflicts false wins',
      { chart: oci, forceConflicts: true },
      { forceConflicts: false },
      '--force-conflicts',
      false,
    ],
    [
      'HelmChartConfig without forceConflicts keeps the chart’s',
      { chart: oci, forceConflicts: true },
      {},
      '--force-conflicts',
      true,
    ],
  ];
  it.each(switches)('%s', (_, spec, config, flag, present) => {
    expect(args(spec, config).includes(flag)).toBe(present);
  });

  describe('chart reference', () => {
    it('is the chart name with repo', () => {
      expect(args({ repo: 'https://charts.example.com', chart: 'c' }).slice(0, 4)).toEqual([
        'upgrade',
        '--install',
        'podinfo',
        'c',
      ]);
    });
    it('is the oci:// reference alone', () => {
      expect(args({ chart: oci })[3]).toBe(oci);
    });
    it('is the URL alone', () => {
      expect(args({ chart: 'https://x/c-1.0.0.tgz' })[3]).toBe('https://x/c-1.0.0.tgz');
    });
    it('is the mounted archive, relative to the working dir, for chartContent, which wins over chart, repo and version', () => {
      const a = args({ chartContent: tinyChartContent, chart: 'c', repo: 'https://x', version: '9.9.9' });
      expect(a[3]).toBe('chart/chart.tgz');
      expect(a).not.toContain('--repo');
      expect(a).not.toContain('--version');
      expect(a).not.toContain('c');
    });
  });

  describe('values files, in order, as relative paths', () => {
    const spec: HelmChartSpec = {
      chart: oci,
      valuesContent: 'a: 1',
      values: { b: 2 },
      valuesSecrets: [
        { name: 's1', keys: ['x', 'y'] },
        { name: 's2', keys: ['z'] },
      ],
    };
    const config: HelmChartConfigSpec = {
      valuesContent: 'c: 3',
      values: { d: 4 },
      valuesSecrets: [{ name: 's3', keys: ['w'] }],
    };
    const secrets = { s1: { x: 'x: 1', y: 'y: 1' }, s2: { z: 'z: 1' }, s3: { w: 'w: 1' } };

    it('HelmChart valuesContent, values, valuesSecrets, then the HelmChartConfig in the same order', () => {
      expect(flagValues(args(spec, config, secrets), '--values')).toEqual([
        'values/values-001-HelmChart-valuesContent.yaml',
        'values/values-002-HelmChart-values.yaml',
        'values/values-003-HelmChart-valuesSecret.yaml',
        'values/values-004-HelmChart-valuesSecret.yaml',
        'values/values-005-HelmChart-valuesSecret.yaml',
        'values/values-006-HelmChartConfig-valuesContent.yaml',
        'values/values-007-HelmChartConfig-values.yaml',
        'values/values-008-HelmChartConfig-valuesSecret.yaml',
      ]);
    });

    it('come before the set entries, so set wins', () => {
      const a = args({ ...spec, set: { k: 'v' } }, config, secrets);
      expect(a.lastIndexOf('--values')).toBeLessThan(a.indexOf('--set-file'));
    });

    it('never carry a value in the arguments', () => {
      const a = args(spec, config, secrets).join(' ');
      for (const text of ['a: 1', 'b: 2', 'c: 3', 'x: 1', 'w: 1']) expect(a).not.toContain(text);
    });

    it('no values: no --values', () => {
      expect(args({ chart: oci })).not.toContain('--values');
    });
  });

  describe('set entries', () => {
    it('are sorted by key and typed as k3s does', () => {
      const a = args({ chart: oci, set: { z: 'text', a: 1, m: 'true', b: 'NULL', c: 'False', d: '1', e: '1.5' } });
      expect(a.slice(a.indexOf('--wait') + 3)).toEqual([
        '--set',
        'a=1',
        '--set',
        'b=NULL',
        '--set',
        'c=False',
        '--set-file',
        'd=values/set-001',
        '--set-file',
        'e=values/set-002',
        '--set',
        'm=true',
        '--set-file',
        'z=values/set-003',
      ]);
    });

    it('put their strings in the values Secret beside the values files, and nowhere in the Job', () => {
      const objects = buildInstall({
        chart: helmChart({ chart: oci, valuesContent: 'a: 1\n', set: { z: 'text-canary', n: 2 } }),
      });
      const data = objects.valuesSecret.data ?? {};
      expect(Object.keys(data)).toEqual(['values-001-HelmChart-valuesContent.yaml', 'set-001']);
      expect(Buffer.from(data['set-001'] ?? '', 'base64').toString('utf8')).toBe('text-canary');
      expect(JSON.stringify(objects.job)).not.toContain('text-canary');
    });
  });
});
