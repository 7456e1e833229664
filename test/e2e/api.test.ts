import { CustomObjectsApi } from '@kubernetes/client-node';
import { parse, stringify } from 'yaml';
import {
  API_VERSION,
  HELM_CHART_PLURAL,
  DEFAULT_API_GROUP,
  MAX_CHART_BYTES,
  MAX_CHART_NAME,
  Message,
  RESERVED_FIELDS,
  apiVersionOf,
  reservedFieldMessage,
  validateHelmChart,
  type ApiGroup,
  type HelmChart,
  type HelmChartSpec,
  type ReservedField,
} from '../../src/api/index.js';
import { waitFor } from '../../src/lib/wait.js';
import { buildChart } from './support/charts.js';
import { installCrds, removeCrds } from './support/crds.js';
import { startHelmflow } from './support/helmflow.js';
import { chartFailed, chartInstalled } from './support/helmcharts.js';
import { freshNamespace, kubeConfig, kubectl, type CommandResult } from './support/kube.js';

const customObjects = () => kubeConfig().makeApiClient(CustomObjectsApi);

/**
 * Issue 3, "What must show it": the CRDs in deploy/crds, applied to a real apiserver, refuse every HelmChart
 * helmflow cannot run safely with a message a user understands, accept the seed's example with k3s's defaults,
 * and print the Job and Failed columns. Every refusal is a real `kubectl apply`.
 */

const namespaces: string[] = [];
async function namespace(prefix: string): Promise<string> {
  const name = await freshNamespace(prefix);
  namespaces.push(name);
  return name;
}

afterAll(() => {
  // No controller watches these HelmCharts; delete them anyway so a later test's controller never meets them.
  if (namespaces.length > 0) kubectl(['delete', 'namespace', '--wait=false', ...namespaces]);
});

function helmChartYaml(name: string, namespace: string, spec: object, group: ApiGroup = DEFAULT_API_GROUP): string {
  return stringify({ apiVersion: apiVersionOf(group), kind: 'HelmChart', metadata: { name, namespace }, spec });
}

function apply(manifest: string, ...flags: string[]): CommandResult {
  return kubectl(['apply', ...flags, '-f', '-'], manifest);
}

function read(namespace: string, name: string, group: ApiGroup = DEFAULT_API_GROUP): HelmChart {
  const got = kubectl(['get', `helmcharts.${group}`, '-n', namespace, name, '-o', 'json']);
  if (got.status !== 0) throw new Error(`kubectl get helmchart ${namespace}/${name}: ${got.stderr}`);
  return JSON.parse(got.stdout) as HelmChart;
}

function exists(namespace: string, name: string, group: ApiGroup = DEFAULT_API_GROUP): boolean {
  const got = kubectl(['get', `helmcharts.${group}`, '-n', namespace, name, '--ignore-not-found', '-o', 'name']);
  return got.stdout.trim() !== '';
}

/** The apiserver prints a CEL message once per failing rule; kubectl wraps it, so compare without line breaks. */
const oneLine = (text: string): string => text.replace(/\s+/gu, ' ');

/** A source the apiserver accepts, for specs that exercise some other field. */
const ociSource: HelmChartSpec = { chart: 'oci://registry.example.com/charts/demo', version: '1.0.0' };

const RESERVED_VALUES: Record<ReservedField, unknown> = {
  repoCA: '-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n',
  repoCAConfigMap: { name: 'repo-ca' },
  authSecret: { name: 'repo-auth' },
  authPassCredentials: true,
  insecureSkipTLSVerify: true,
  plainHTTP: true,
  dockerRegistrySecret: { name: 'registry-auth' },
};

describe('the HelmChart CRDs on a real apiserver', () => {
  let ns: string;

  beforeAll(async () => {
    await installCrds(DEFAULT_API_GROUP);
    ns = await namespace('api');
  });

  describe('refuse, at kubectl apply, what helmflow will not run', () => {
    const refusals: [string, object, string][] = [
      ['http:// in repo', { repo: 'http://charts.example.com', chart: 'demo' }, Message.insecureRepo],
      [
        'HTTP:// in repo, in any letter case',
        { repo: 'HTTP://charts.example.com', chart: 'demo' },
        Message.insecureRepo,
      ],
      ['http:// in chart', { chart: 'http://charts.example.com/demo-1.0.0.tgz' }, Message.insecureChart],
      [
        'http:// in chart even beside a repo',
        { repo: 'https://charts.example.com', chart: 'http://charts.example.com/demo-1.0.0.tgz' },
        Message.insecureChart,
      ],
      ...(Object.keys(RESERVED_FIELDS) as ReservedField[]).map((field): [string, object, string] => [
        `the reserved k3s field ${field}`,
        { ...ociSource, [field]: RESERVED_VALUES[field] },
        reservedFieldMessage(field),
      ]),
      [
        'credentials in an https repo',
        { repo: 'https://user:token@charts.example.com', chart: 'demo' },
        Message.credentialsInRepo,
      ],
      [
        'credentials in an oci chart',
        { chart: 'oci://user:token@registry.example.com/charts/demo', version: '1.0.0' },
        Message.credentialsInChart,
      ],
      ['a malformed timeout', { ...ociSource, timeout: '5 minutes' }, Message.invalidTimeout],
      ['a timeout without a unit', { ...ociSource, timeout: '300' }, Message.invalidTimeout],
      ['a zero timeout', { ...ociSource, timeout: '0s' }, Message.invalidTimeout],
      [
        'an unknown failurePolicy',
        { ...ociSource, failurePolicy: 'explode' },
        'spec.failurePolicy: Unsupported value: "explode": supported values: "abort", "reinstall", "retry"',
      ],
      [
        'an unknown serverSide',
        { ...ociSource, serverSide: 'sometimes' },
        'spec.serverSide: Unsupported value: "sometimes": supported values: "true", "false", "auto"',
      ],
    ];

    it.each(refusals)('%s', (title, spec, message) => {
      const name = `refused-${refusals.findIndex(([t]) => t === title)}`;
      const result = apply(helmChartYaml(name, ns, spec));
      expect(result.status).not.toBe(0);
      expect(oneLine(result.stderr)).toContain(`The HelmChart "${name}" is invalid`);
      expect(oneLine(result.stderr)).toContain(oneLine(message));
      // The refusal does not repeat what was refused: a credential would end up in logs.
      expect(result.stderr).not.toContain('user:token');
      expect(exists(ns, name)).toBe(false);
    });

    it(`accepts a name of ${MAX_CHART_NAME} characters and refuses ${MAX_CHART_NAME + 1}, saying the Job name binds`, () => {
      expect(MAX_CHART_NAME).toBe(50);
      const longest = 'n'.repeat(MAX_CHART_NAME);
      expect(apply(helmChartYaml(longest, ns, ociSource))).toEqual(expect.objectContaining({ status: 0 }));
      expect(exists(ns, longest)).toBe(true);

      const tooLong = 'n'.repeat(MAX_CHART_NAME + 1);
      const refused = apply(helmChartYaml(tooLong, ns, ociSource));
      expect(refused.status).not.toBe(0);
      expect(oneLine(refused.stderr)).toContain(
        'metadata.name must be at most 50 characters: the Job helm-install-<name> must fit a 63-character label; the release limit of 53 is not the binding one',
      );
      expect(exists(ns, tooLong)).toBe(false);

      // A HelmChartConfig of that name could never match a HelmChart: refused too.
      const config = (name: string) =>
        apply(
          stringify({
            apiVersion: apiVersionOf(DEFAULT_API_GROUP),
            kind: 'HelmChartConfig',
            metadata: { name, namespace: ns },
            spec: { valuesContent: 'a: 1\n' },
          }),
        );
      expect(config(longest).status).toBe(0);
      const refusedConfig = config(tooLong);
      expect(refusedConfig.status).not.toBe(0);
      expect(oneLine(refusedConfig.stderr)).toContain(Message.configNameTooLong);
    });

    it('refuses a chartContent that decodes to 1 MiB, and accepts one a byte smaller', async () => {
      // Server-side apply: client-side apply would copy 1.4 MB into an annotation, which is refused on its own.
      const oneMiB = Buffer.alloc(MAX_CHART_BYTES, 7).toString('base64');
      const refused = apply(helmChartYaml('too-big', ns, { chartContent: oneMiB }), '--server-side');
      expect(refused.status).not.toBe(0);
      expect(oneLine(refused.stderr)).toContain(Message.chartContentTooLarge);
      expect(exists(ns, 'too-big')).toBe(false);

      const justUnder = Buffer.alloc(MAX_CHART_BYTES - 1, 7).toString('base64');
      const accepted = apply(helmChartYaml('just-fits', ns, { chartContent: justUnder }), '--server-side');
      expect(accepted).toEqual(expect.objectContaining({ status: 0 }));
      // Read through the API: the stored object is larger than kubectl()'s 1 MiB output buffer.
      const stored = (await customObjects().getNamespacedCustomObject({
        group: DEFAULT_API_GROUP,
        version: API_VERSION,
        namespace: ns,
        plural: HELM_CHART_PLURAL,
        name: 'just-fits',
      })) as HelmChart;
      expect(stored.spec.chartContent).toBe(justUnder);
    });

    it('refuses a changed driver on update, whether it was set or defaulted', () => {
      expect(apply(helmChartYaml('driver-set', ns, { ...ociSource, driver: 'configmap' })).status).toBe(0);
      const changed = apply(helmChartYaml('driver-set', ns, { ...ociSource, driver: 'secret' }));
      expect(changed.status).not.toBe(0);
      expect(oneLine(changed.stderr)).toContain(Message.driverImmutable);
      expect(read(ns, 'driver-set').spec.driver).toBe('configmap');

      expect(apply(helmChartYaml('driver-default', ns, ociSource)).status).toBe(0);
      expect(read(ns, 'driver-default').spec.driver).toBe('secret');
      const switched = apply(helmChartYaml('driver-default', ns, { ...ociSource, driver: 'configmap' }));
      expect(switched.status).not.toBe(0);
      expect(oneLine(switched.stderr)).toContain(Message.driverImmutable);

      // Anything else may still change.
      expect(apply(helmChartYaml('driver-default', ns, { ...ociSource, version: '1.0.1' })).status).toBe(0);
      expect(read(ns, 'driver-default').spec.version).toBe('1.0.1');
    });

    it('refuses an unknown failurePolicy on a HelmChartConfig too', () => {
      const config = stringify({
        apiVersion: apiVersionOf(DEFAULT_API_GROUP),
        kind: 'HelmChartConfig',
        metadata: { name: 'overlay', namespace: ns },
        spec: { failurePolicy: 'explode' },
      });
      const refused = apply(config);
      expect(refused.status).not.toBe(0);
      expect(oneLine(refused.stderr)).toContain('spec.failurePolicy: Unsupported value: "explode"');
    });
  });

  it("applies seed 000's podinfo example cleanly, with k3s's defaults filled in", () => {
    // Exactly the YAML of the behaviour contract's podinfo example (test/e2e/seed-coverage.md, row 4), kube-system
    // and all.
    const seedExample = `apiVersion: helm.k3sm.io/v1
kind: HelmChart
metadata:
  name: podinfo
  namespace: kube-system
spec:
  repo: https://stefanprodan.github.io/podinfo
  chart: podinfo
  version: 6.7.1
  targetNamespace: apps
  createNamespace: true
  valuesContent: |
    replicaCount: 1
  set:
    ui.message: hello
`;
    const applied = apply(seedExample);
    try {
      expect(applied).toEqual({ status: 0, stdout: 'helmchart.helm.k3sm.io/podinfo created\n', stderr: '' });
      const stored = read('kube-system', 'podinfo');
      expect(stored.spec).toEqual({
        repo: 'https://stefanprodan.github.io/podinfo',
        chart: 'podinfo',
        version: '6.7.1',
        targetNamespace: 'apps',
        createNamespace: true,
        valuesContent: 'replicaCount: 1\n',
        set: { 'ui.message': 'hello' },
        failurePolicy: 'reinstall',
        driver: 'secret',
      });
      // What the apiserver accepted, the controller's own checks accept too.
      expect(validateHelmChart(stored)).toBeUndefined();
      // The short name works as in k3s.
      expect(kubectl(['get', 'hc', '-n', 'kube-system', 'podinfo', '-o', 'name']).stdout).toBe(
        'helmchart.helm.k3sm.io/podinfo\n',
      );
    } finally {
      kubectl(['delete', '-f', '-', '--wait=false'], seedExample);
    }
  });

  it('shows the Job and whether the last run failed in `kubectl get helmcharts -A`, as the controller wrote them', async () => {
    // Only this test runs helmflow. The charts applied above carry no finalizer (no controller saw them): delete
    // them first, so that helmflow acts on this test's charts alone.
    for (const n of namespaces) kubectl(['delete', `helmcharts.${DEFAULT_API_GROUP}`, '--all', '-n', n]);
    const printNs = await namespace('printed');
    const built = buildChart({ name: 'printed' });
    const chart = (name: string, spec: HelmChartSpec) => apply(helmChartYaml(name, printNs, spec));
    // Installs; fails once in helm (abort keeps the failed Job); refused before any Job (its values Secret is absent).
    expect(chart('healthy', { chartContent: built.chartContent, targetNamespace: printNs }).status).toBe(0);
    expect(
      chart('broken', {
        chartContent: built.chartContent,
        set: { fail: 'broken on purpose' },
        backOffLimit: 0,
        failurePolicy: 'abort',
      }).status,
    ).toBe(0);
    const absent = [{ name: 'absent', keys: ['values.yaml'] }];
    expect(chart('refused', { ...ociSource, bootstrap: true, valuesSecrets: absent }).status).toBe(0);
    const helmflow = startHelmflow();
    try {
      await chartInstalled(printNs, 'healthy');
      const broken = await chartFailed(printNs, 'broken');
      expect(broken.status?.jobName).toBe('helm-install-broken');
      const refused = await chartFailed(printNs, 'refused');
      expect(refused.status?.conditions?.find((c) => c.type === 'Failed')?.reason).toBe('ValuesSecretNotFound');

      // Qualified with the group: with helm.cattle.io installed too, a bare `helmcharts` may resolve to it.
      const table = kubectl(['get', `helmcharts.${DEFAULT_API_GROUP}`, '-A']);
      expect(table.status).toBe(0);
      const [header = '', ...rows] = table.stdout.trimEnd().split('\n');
      const columns = header.split(/\s{2,}/u);
      expect(columns).toEqual([
        'NAMESPACE',
        'NAME',
        'REPO',
        'CHART',
        'VERSION',
        'TARGETNAMESPACE',
        'BOOTSTRAP',
        'FAILED',
        'JOB',
        'REVISION',
        'RELEASE',
        'AGE',
      ]);
      const row = (name: string): Record<string, string> => {
        const line = rows.find((r) => r.startsWith(`${printNs} `) && r.split(/\s+/u)[1] === name);
        expect(line).toBeDefined();
        // Cut at the header's column starts: an empty cell prints as blanks.
        const starts = [...header.matchAll(/\S+/gu)].map((m) => m.index);
        return Object.fromEntries(
          columns.map((c, i) => [c, (line ?? '').slice(starts[i], starts[i + 1] ?? undefined).trim()]),
        );
      };
      expect(row('healthy')).toEqual(
        expect.objectContaining({
          TARGETNAMESPACE: printNs,
          FAILED: 'False',
          JOB: 'helm-install-healthy',
          REVISION: '1',
          RELEASE: 'deployed',
        }),
      );
      // Its render fails in pre-flight: no release was ever stored.
      expect(row('broken')).toEqual(
        expect.objectContaining({ FAILED: 'True', JOB: 'helm-install-broken', REVISION: '', RELEASE: '' }),
      );
      expect(row('refused')).toEqual(
        expect.objectContaining({
          CHART: 'oci://registry.example.com/charts/demo',
          VERSION: '1.0.0',
          BOOTSTRAP: 'true',
          FAILED: 'True',
          JOB: '',
          REVISION: '',
          RELEASE: '',
        }),
      );
    } finally {
      // Delete while helmflow runs, so it releases its finalizers; then nothing of this test is left to act on.
      kubectl(['delete', `helmcharts.${DEFAULT_API_GROUP}`, '--all', '-n', printNs, '--wait=false']);
      await waitFor(
        'the printed charts to be gone',
        () => kubectl(['get', `helmcharts.${DEFAULT_API_GROUP}`, '-n', printNs, '-o', 'name']).stdout.trim() === '',
        { timeoutMs: 180_000 },
      );
      await helmflow.stop();
    }
    // helmflow's start, an install, a failed Job and three uninstalls: minutes on a loaded machine.
  }, 600_000);

  describe('helm.cattle.io, the drop-in group for k3s', () => {
    beforeAll(async () => {
      await installCrds('helm.cattle.io');
    });
    // Two groups serving `helmcharts` make kubectl's short names ambiguous for the tests that follow.
    afterAll(async () => {
      await removeCrds('helm.cattle.io');
    });

    it("installs beside helm.k3sm.io and accepts a k3s-style HelmChart, with k3s's defaults", async () => {
      const cattleNs = await namespace('cattle');
      // The shape of k3s's own packaged charts: a chart URL on the apiserver, set entries, valuesContent.
      const k3sStyle = `apiVersion: helm.cattle.io/v1
kind: HelmChart
metadata:
  name: traefik
  namespace: ${cattleNs}
spec:
  chart: https://%{KUBERNETES_API}%/static/charts/traefik-34.2.1+up34.2.0.tgz
  set:
    global.systemDefaultRegistry: ""
  valuesContent: |-
    deployment:
      podAnnotations:
        prometheus.io/port: "8082"
    priorityClassName: "system-cluster-critical"
`;
      const applied = apply(k3sStyle);
      expect(applied).toEqual({ status: 0, stdout: 'helmchart.helm.cattle.io/traefik created\n', stderr: '' });
      const stored = read(cattleNs, 'traefik', 'helm.cattle.io');
      expect(stored.apiVersion).toBe('helm.cattle.io/v1');
      expect(stored.spec).toEqual(
        expect.objectContaining({
          failurePolicy: 'reinstall',
          driver: 'secret',
          set: { 'global.systemDefaultRegistry': '' },
        }),
      );
      expect(validateHelmChart(stored)).toBeUndefined();
      // The k3sm group's object of the same name is a different object.
      expect(exists(cattleNs, 'traefik')).toBe(false);
      const config = apply(
        stringify({
          apiVersion: 'helm.cattle.io/v1',
          kind: 'HelmChartConfig',
          metadata: { name: 'traefik', namespace: cattleNs },
          spec: { valuesContent: 'ports:\n  web:\n    port: 8080\n' },
        }),
      );
      expect(config).toEqual(expect.objectContaining({ status: 0 }));
      expect(
        parse(kubectl(['get', 'helmchartconfigs.helm.cattle.io', '-n', cattleNs, 'traefik', '-o', 'yaml']).stdout),
      ).toEqual(expect.objectContaining({ kind: 'HelmChartConfig' }));
    });

    it('refuses the same things there (http:// and a reserved field)', () => {
      const insecure = apply(
        helmChartYaml('insecure', ns, { repo: 'http://x.example.com', chart: 'demo' }, 'helm.cattle.io'),
      );
      expect(insecure.status).not.toBe(0);
      expect(oneLine(insecure.stderr)).toContain(Message.insecureRepo);
      const reserved = apply(helmChartYaml('reserved', ns, { ...ociSource, plainHTTP: true }, 'helm.cattle.io'));
      expect(reserved.status).not.toBe(0);
      expect(oneLine(reserved.stderr)).toContain(reservedFieldMessage('plainHTTP'));
      expect(exists(ns, 'insecure', 'helm.cattle.io')).toBe(false);
    });
  });
});
