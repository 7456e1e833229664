import {
  MAX_CHART_BYTES,
  Reason,
  goDurationSeconds,
  helmChartConfigProblems,
  helmChartProblems,
  installProblems,
  validateHelmChart,
  validateInstall,
  type HelmChartSpec,
} from '../../src/api/index.js';
import { helmChart, helmChartConfig, podinfoSpec, tinyChartContent } from './support/charts.js';

const oci = { chart: 'oci://ghcr.io/stefanprodan/charts/podinfo' };
const base64Of = (bytes: number): string => Buffer.alloc(bytes).toString('base64');

describe('validateHelmChart', () => {
  it("accepts the seed's podinfo example", () => {
    expect(helmChartProblems(helmChart(podinfoSpec))).toEqual([]);
  });

  const accepted: [string, HelmChartSpec][] = [
    ['an oci:// chart alone', oci],
    ['an https:// chart URL alone', { chart: 'https://example.com/charts/podinfo-6.7.1.tgz' }],
    ['chartContent alone', { chartContent: tinyChartContent }],
    ['chartContent beside a bare chart name (chartContent wins)', { chartContent: tinyChartContent, chart: 'x' }],
    ['chartContent wrapped over lines', { chartContent: tinyChartContent.replace(/(.{8})/gu, '$1\n') }],
    ['chartContent of 1 MiB − 1 byte', { chartContent: base64Of(MAX_CHART_BYTES - 1) }],
    ['false reserved booleans (k3s writes them)', { ...oci, insecureSkipTLSVerify: false, plainHTTP: false }],
    ['an empty repoCA', { ...oci, repoCA: '' }],
    ['every failurePolicy', { ...oci, failurePolicy: 'retry' }],
    ['serverSide auto', { ...oci, serverSide: 'auto' }],
    ['a timeout of 1h30m', { ...oci, timeout: '1h30m' }],
    ['a timeout of 1.5s', { ...oci, timeout: '1.5s' }],
    ['driver configmap', { ...oci, driver: 'configmap' }],
    ['backOffLimit 0', { ...oci, backOffLimit: 0 }],
    ['set of strings and integers', { ...oci, set: { a: 1, b: 'x,y' } }],
    ['helmVersion v3 (k3s manifests carry it)', { ...oci, helmVersion: 'v3' }],
  ];
  it.each(accepted)('accepts %s', (_, spec) => {
    expect(helmChartProblems(helmChart(spec))).toEqual([]);
  });

  const refused: [string, HelmChartSpec, string, RegExp][] = [
    [
      'http:// in repo',
      { ...podinfoSpec, repo: 'http://charts.example.com' },
      Reason.InsecureRepo,
      /spec\.repo.*http:\/\//u,
    ],
    ['HTTP:// in repo', { ...podinfoSpec, repo: 'HTTP://charts.example.com' }, Reason.InsecureRepo, /http:\/\//u],
    ['http:// in chart', { chart: 'http://example.com/c.tgz' }, Reason.InsecureRepo, /spec\.chart.*https:\/\/ or oci/u],
    [
      'http:// chart even beside chartContent',
      { chartContent: tinyChartContent, chart: 'http://x/c.tgz' },
      Reason.InsecureRepo,
      /http/u,
    ],
    [
      'repoCA',
      { ...oci, repoCA: 'PEM' },
      Reason.ReservedField,
      /spec\.repoCA is a reserved k3s field and is not supported/u,
    ],
    [
      'repoCAConfigMap',
      { ...oci, repoCAConfigMap: { name: 'ca' } },
      Reason.ReservedField,
      /repoCAConfigMap is a reserved/u,
    ],
    ['authSecret', { ...oci, authSecret: { name: 'a' } }, Reason.ReservedField, /authSecret is a reserved/u],
    [
      'authPassCredentials',
      { ...oci, authPassCredentials: true },
      Reason.ReservedField,
      /authPassCredentials is a reserved/u,
    ],
    [
      'insecureSkipTLSVerify',
      { ...oci, insecureSkipTLSVerify: true },
      Reason.ReservedField,
      /insecureSkipTLSVerify is a reserved/u,
    ],
    ['plainHTTP', { ...oci, plainHTTP: true }, Reason.ReservedField, /plainHTTP is a reserved/u],
    [
      'dockerRegistrySecret',
      { ...oci, dockerRegistrySecret: { name: 'd' } },
      Reason.ReservedField,
      /dockerRegistrySecret is a reserved/u,
    ],
    ['no chart at all', { targetNamespace: 'apps' }, Reason.ChartMissing, /chart or spec\.chartContent is required/u],
    [
      'an oci:// repo',
      { repo: 'oci://ghcr.io/x', chart: 'podinfo' },
      Reason.InvalidRepo,
      /oci:\/\/ reference in spec\.chart/u,
    ],
    ['a chart name without repo', { chart: 'podinfo' }, Reason.InvalidChart, /without spec\.repo/u],
    [
      'a chart that looks like a flag',
      { repo: 'https://x', chart: '--post-renderer=sh' },
      Reason.InvalidChart,
      /chart name/u,
    ],
    [
      'chartContent of exactly 1 MiB',
      { chartContent: base64Of(MAX_CHART_BYTES) },
      Reason.ChartContentTooLarge,
      /under 1 MiB/u,
    ],
    ['chartContent that is not base64', { chartContent: 'not base64!' }, Reason.InvalidChartContent, /base64/u],
    [
      'failurePolicy bogus',
      { ...oci, failurePolicy: 'bogus' as 'abort' },
      Reason.InvalidFailurePolicy,
      /abort, reinstall/u,
    ],
    [
      'serverSide maybe',
      { ...oci, serverSide: 'maybe' as 'auto' },
      Reason.InvalidServerSide,
      /"true", "false" or "auto"/u,
    ],
    ['serverSide as a boolean', { ...oci, serverSide: true as unknown as 'true' }, Reason.InvalidServerSide, /string/u],
    ['timeout 5 minutes', { ...oci, timeout: '5 minutes' }, Reason.InvalidTimeout, /Go duration/u],
    ['timeout 0s', { ...oci, timeout: '0s' }, Reason.InvalidTimeout, /positive/u],
    ['timeout -5m', { ...oci, timeout: '-5m' }, Reason.InvalidTimeout, /positive/u],
    ['driver sql', { ...oci, driver: 'sql' as 'secret' }, Reason.InvalidDriver, /secret .* or configmap/u],
    ['targetNamespace Apps_1', { ...oci, targetNamespace: 'Apps_1' }, Reason.InvalidTargetNamespace, /namespace name/u],
    ['backOffLimit -1', { ...oci, backOffLimit: -1 }, Reason.InvalidBackOffLimit, /backOffLimit/u],
    ['a fractional set value', { ...oci, set: { a: 1.5 } }, Reason.InvalidSet, /strings or integers/u],
    ['helmVersion v2', { ...oci, helmVersion: 'v2' }, Reason.UnsupportedHelmVersion, /deprecated/u],
    [
      'too many valuesSecrets',
      { ...oci, valuesSecrets: Array.from({ length: 21 }, (_, i) => ({ name: `s${i}`, keys: ['k'] })) },
      Reason.TooManyValuesSecrets,
      /at most 20/u,
    ],
  ];
  it.each(refused)('refuses %s', (_, spec, reason, message) => {
    const refusal = validateHelmChart(helmChart(spec));
    expect(refusal?.reason).toBe(reason);
    expect(refusal?.message).toMatch(message);
  });

  it('refuses a name over 50 characters, where helm-install-<name> outgrows a label (name-limits.test.ts)', () => {
    expect(validateHelmChart(helmChart(oci, { name: 'a'.repeat(50) }))).toBeUndefined();
    expect(validateHelmChart(helmChart(oci, { name: 'a'.repeat(51) }))).toEqual({
      reason: Reason.NameTooLong,
      message: expect.stringContaining('at most 50 characters') as string,
    });
  });

  const withCredentials: [string, HelmChartSpec, string][] = [
    ['user and token in an https repo', { repo: 'https://user:token@charts.example.com', chart: 'c' }, 'spec.repo'],
    ['a user alone in a repo', { repo: 'https://token@charts.example.com/x', chart: 'c' }, 'spec.repo'],
    ['credentials in an oci chart', { chart: 'oci://user:token@registry.example.com/charts/c' }, 'spec.chart'],
    ['credentials in an https chart', { chart: 'HTTPS://u:p@charts.example.com/c-1.0.0.tgz' }, 'spec.chart'],
    ['credentials in another scheme', { repo: 's3://key:secret@bucket/charts', chart: 'c' }, 'spec.repo'],
  ];
  it.each(withCredentials)('refuses %s (CredentialsInURL)', (_, spec, field) => {
    const refusal = helmChartProblems(helmChart(spec)).find((p) => p.reason === Reason.CredentialsInURL);
    expect(refusal?.message).toContain(`${field} must not carry credentials`);
    expect(refusal?.message).toContain('spec.authSecret');
    expect(refusal?.message).not.toMatch(/token|secret@/u);
  });

  it.each([
    ['an @ in an oci digest', { chart: 'oci://registry.example.com/charts/c@sha256:0123abcd' }],
    ['an @ in a path', { repo: 'https://charts.example.com/team@corp', chart: 'c' }],
    ['an @ in a query', { chart: 'https://charts.example.com/c.tgz?by=a@b' }],
  ])('accepts %s, which is no userinfo', (_, spec: HelmChartSpec) => {
    expect(helmChartProblems(helmChart(spec)).map((p) => p.reason)).not.toContain(Reason.CredentialsInURL);
  });

  it('reports InsecureRepo first when there is more than one problem', () => {
    const problems = helmChartProblems(
      helmChart({ repo: 'http://x', chart: 'c', plainHTTP: true, timeout: 'soon' }, { name: 'n'.repeat(60) }),
    );
    expect(problems.map((p) => p.reason)).toEqual([
      Reason.InsecureRepo,
      Reason.ReservedField,
      Reason.NameTooLong,
      Reason.InvalidTimeout,
    ]);
  });
});

describe('validateHelmChartConfig', () => {
  it('accepts the overlay fields and refuses bad failurePolicy or serverSide', () => {
    expect(helmChartConfigProblems(helmChartConfig({ failurePolicy: 'abort', forceConflicts: false }))).toEqual([]);
    expect(helmChartConfigProblems(helmChartConfig({}))).toEqual([]);
    expect(helmChartConfigProblems(helmChartConfig({ failurePolicy: 'x' as 'abort' }))[0]?.reason).toBe(
      Reason.InvalidFailurePolicy,
    );
    expect(helmChartConfigProblems(helmChartConfig({ serverSide: 'x' as 'auto' }))[0]?.reason).toBe(
      Reason.InvalidServerSide,
    );
  });
});

describe('values Secrets', () => {
  const chart = helmChart({
    ...oci,
    valuesSecrets: [
      { name: 'required', keys: ['a.yaml', 'b.yaml'] },
      { name: 'optional', keys: ['c.yaml'], ignoreUpdates: true },
      { name: 'unused', keys: [] },
      { name: 'chart-values-podinfo', keys: ['self.yaml'] },
    ],
  });

  it('accepts present Secrets and keys, optional ones missing, and entries k3s skips', () => {
    expect(validateInstall(chart, undefined, { required: { 'a.yaml': 'x: 1', 'b.yaml': '' } })).toBeUndefined();
  });

  it('refuses a missing required Secret, naming it', () => {
    expect(validateInstall(chart, undefined, {})).toEqual({
      reason: Reason.ValuesSecretNotFound,
      message: expect.stringContaining('Secret required, which does not exist') as string,
    });
  });

  it('refuses a missing key of a required Secret, naming both', () => {
    expect(validateInstall(chart, undefined, { required: { 'a.yaml': '' } })).toEqual({
      reason: Reason.ValuesSecretKeyNotFound,
      message: expect.stringContaining('key b.yaml of Secret required') as string,
    });
  });

  it("checks the HelmChartConfig's Secrets too, after the chart's own problems", () => {
    const config = helmChartConfig({ valuesSecrets: [{ name: 'overlay', keys: ['v'] }] });
    const problems = installProblems(helmChart({ ...oci, plainHTTP: true }), config, {});
    expect(problems.map((p) => p.reason)).toEqual([Reason.ReservedField, Reason.ValuesSecretNotFound]);
    expect(problems[1]?.message).toMatch(/^HelmChartConfig valuesSecrets names Secret overlay/u);
  });
});

describe('goDurationSeconds', () => {
  it.each([
    ['5m0s', 300],
    ['300s', 300],
    ['1h30m', 5400],
    ['1.5s', 1.5],
    ['100ms', 0.1],
    ['2h45m30.5s', 9930.5],
    ['10µs', 0.00001],
  ])('reads %s as %d seconds', (text, seconds) => {
    expect(goDurationSeconds(text)).toBeCloseTo(seconds, 9);
  });

  it.each(['', '5', 'five minutes', '5 m', '-5m', '5d', 'm5'])('refuses %j', (text) => {
    expect(goDurationSeconds(text)).toBeUndefined();
  });
});
