import type { KubernetesObject } from '@kubernetes/client-node';
import type { HelmChartConfigSpec, HelmChartSpec } from '../../src/api/index.js';
import {
  DEFAULT_JOB_IMAGE,
  EGRESS_ANNOTATION,
  WORKING_DIR,
  buildDelete,
  buildInstall,
  chartSelector,
  planInstall,
  chartSettingsOf,
  installObjectRefs,
  type InstallInput,
} from '../../src/build/index.js';
import { readPins } from '../../src/config/pins.js';
import { helmChart, helmChartConfig, podinfoSpec, tinyChartContent } from './support/charts.js';
import { argsOf, containerOf, podOf } from './support/job.js';

const oci = 'oci://ghcr.io/stefanprodan/charts/podinfo';
const uid = helmChart({}).metadata.uid;
const decode = (data: Record<string, string> | undefined): Record<string, string> =>
  Object.fromEntries(Object.entries(data ?? {}).map(([k, v]) => [k, Buffer.from(v, 'base64').toString('utf8')]));

function install(spec: HelmChartSpec, config?: HelmChartConfigSpec, secrets: InstallInput['secrets'] = {}) {
  const input: InstallInput = { chart: helmChart(spec), secrets };
  if (config !== undefined) input.config = helmChartConfig(config);
  return buildInstall(input);
}

describe('ServiceAccount and ClusterRoleBinding', () => {
  const objects = install({ chart: oci });

  it('gives each chart the ServiceAccount helm-<name> in its namespace, owned by the chart', () => {
    expect(objects.serviceAccount.metadata).toMatchObject({
      name: 'helm-podinfo',
      namespace: 'kube-system',
      ownerReferences: [{ apiVersion: 'helm.k3sm.io/v1', kind: 'HelmChart', name: 'podinfo', uid }],
    });
    expect(objects.serviceAccount.automountServiceAccountToken).toBe(true);
  });

  it('binds it to cluster-admin as helm-<namespace>-<name>, with labels since it cannot be owned', () => {
    expect(objects.clusterRoleBinding.metadata?.name).toBe('helm-kube-system-podinfo');
    expect(objects.clusterRoleBinding.metadata?.ownerReferences).toBeUndefined();
    expect(objects.clusterRoleBinding.metadata?.labels).toMatchObject({
      'helmcharts.helm.k3sm.io/chart': 'podinfo',
      'helmcharts.helm.k3sm.io/namespace': 'kube-system',
      'helmcharts.helm.k3sm.io/uid': uid,
    });
    expect(objects.clusterRoleBinding.roleRef).toEqual({
      apiGroup: 'rbac.authorization.k8s.io',
      kind: 'ClusterRole',
      name: 'cluster-admin',
    });
    expect(objects.clusterRoleBinding.subjects).toEqual([
      { kind: 'ServiceAccount', name: 'helm-podinfo', namespace: 'kube-system' },
    ]);
  });

  it('binds a configured role instead', () => {
    const crb = buildInstall(
      { chart: helmChart({ chart: oci }) },
      { clusterRole: 'helm-installer' },
    ).clusterRoleBinding;
    expect(crb.roleRef.name).toBe('helm-installer');
  });
});

describe('values Secret', () => {
  it('is chart-values-<name>, holds each values file under its ordered name, and is owned by the chart', () => {
    const { valuesSecret } = install(
      {
        chart: oci,
        valuesContent: 'a: 1\n',
        values: { b: { c: [1, 'two'] } },
        valuesSecrets: [
          { name: 's1', keys: ['k2', 'k1'] },
          { name: 'gone', keys: ['k'], ignoreUpdates: true },
          { name: 'opt', keys: ['missing', 'there'], ignoreUpdates: true },
        ],
      },
      { valuesContent: 'd: 4\n', values: { e: 5 }, valuesSecrets: [{ name: 's2', keys: ['k'] }] },
      { s1: { k1: 'k1: 1', k2: 'k2: 1', unread: 'x' }, opt: { there: 'opt: 1' }, s2: { k: 's2: 1' } },
    );
    expect(valuesSecret.metadata).toMatchObject({
      name: 'chart-values-podinfo',
      namespace: 'kube-system',
      ownerReferences: [{ kind: 'HelmChart', uid }],
    });
    expect(valuesSecret.type).toBe('helmcharts.helm.k3sm.io/values');
    expect(decode(valuesSecret.data)).toEqual({
      'values-001-HelmChart-valuesContent.yaml': 'a: 1\n',
      'values-002-HelmChart-values.yaml': 'b:\n  c:\n    - 1\n    - two\n',
      'values-003-HelmChart-valuesSecret.yaml': 'k2: 1',
      'values-004-HelmChart-valuesSecret.yaml': 'k1: 1',
      'values-005-HelmChart-valuesSecret.yaml': 'opt: 1',
      'values-006-HelmChartConfig-valuesContent.yaml': 'd: 4\n',
      'values-007-HelmChartConfig-values.yaml': 'e: 5\n',
      'values-008-HelmChartConfig-valuesSecret.yaml': 's2: 1',
    });
  });

  it.each([
    ['an empty valuesContent', { chart: oci, valuesContent: '' }],
    ['empty values', { chart: oci, values: {} }],
    ['a valuesSecret without keys', { chart: oci, valuesSecrets: [{ name: 's', keys: [] }] }],
    ["the chart's own values Secret", { chart: oci, valuesSecrets: [{ name: 'chart-values-podinfo', keys: ['k'] }] }],
  ])('skips %s, as k3s does', (_, spec: HelmChartSpec) => {
    expect(install(spec, undefined, { s: { k: 'x' }, 'chart-values-podinfo': { k: 'x' } }).valuesSecret.data).toEqual(
      {},
    );
  });
});

describe('chart content ConfigMap', () => {
  it('holds the archive as binaryData chart.tgz in chart-content-<name>, owned by the chart', () => {
    const { chartContent } = install({ chartContent: `${tinyChartContent.slice(0, 8)}\n${tinyChartContent.slice(8)}` });
    expect(chartContent?.metadata).toMatchObject({
      name: 'chart-content-podinfo',
      namespace: 'kube-system',
      ownerReferences: [{ kind: 'HelmChart', uid }],
    });
    expect(chartContent?.binaryData).toEqual({ 'chart.tgz': tinyChartContent });
  });

  it('is not built for a chart fetched from a repository', () => {
    expect(install(podinfoSpec).chartContent).toBeUndefined();
  });
});

describe('install Job', () => {
  it('is helm-install-<name> in the chart namespace, owned by the chart, labelled to be found', () => {
    const { job } = install({ chart: oci });
    expect(job.metadata?.name).toBe('helm-install-podinfo');
    expect(job.metadata?.namespace).toBe('kube-system');
    expect(job.metadata?.ownerReferences).toEqual([
      { apiVersion: 'helm.k3sm.io/v1', kind: 'HelmChart', name: 'podinfo', uid, controller: true },
    ]);
    expect(job.metadata?.labels).toMatchObject({
      'helmcharts.helm.k3sm.io/chart': 'podinfo',
      'helmcharts.helm.k3sm.io/uid': uid,
      'helmcharts.helm.k3sm.io/action': 'install',
    });
    expect(job.spec?.template.metadata?.labels).toEqual(job.metadata?.labels);
    expect(chartSelector(helmChart({}), 'helm.k3sm.io')).toBe(
      `helmcharts.helm.k3sm.io/chart=podinfo,helmcharts.helm.k3sm.io/uid=${uid}`,
    );
  });

  it('records the digest it was built from', () => {
    const objects = install({ chart: oci });
    expect(objects.job.metadata?.annotations?.['helmcharts.helm.k3sm.io/digest']).toBe(objects.digest);
    expect(objects.digest).toMatch(/^[0-9a-f]{64}$/u);
  });

  it('uses the served group for apiVersion, labels and annotations', () => {
    const objects = buildInstall({ chart: helmChart({ chart: oci }) }, { group: 'helm.cattle.io' });
    expect(objects.job.metadata?.ownerReferences?.[0]?.apiVersion).toBe('helm.cattle.io/v1');
    expect(objects.job.metadata?.labels?.['helmcharts.helm.cattle.io/chart']).toBe('podinfo');
    expect(objects.job.metadata?.annotations?.['helmcharts.helm.cattle.io/digest']).toBe(objects.digest);
    expect(objects.valuesSecret.type).toBe('helmcharts.helm.cattle.io/values');
  });

  it.each([
    ['a repo chart', podinfoSpec, true],
    ['an oci:// chart', { chart: oci }, true],
    ['a chart URL', { chart: 'https://x/c.tgz' }, true],
    ['chartContent', { chartContent: tinyChartContent }, false],
    ['chartContent beside a repo chart (chartContent wins)', { ...podinfoSpec, chartContent: tinyChartContent }, false],
  ])('egress annotation for %s: %s', (_, spec: HelmChartSpec, egress) => {
    const { job } = install(spec);
    const expected = egress ? 'true' : undefined;
    expect(job.metadata?.annotations?.[EGRESS_ANNOTATION]).toBe(expected);
    expect(job.spec?.template.metadata?.annotations?.[EGRESS_ANNOTATION]).toBe(expected);
  });

  it.each([
    ['defaults to 1000', {}, 1000],
    ['follows spec.backOffLimit', { backOffLimit: 3 }, 3],
    ['may be 0', { backOffLimit: 0 }, 0],
  ])('backoffLimit %s', (_, extra: HelmChartSpec, limit) => {
    expect(install({ chart: oci, ...extra }).job.spec?.backoffLimit).toBe(limit);
  });

  it.each([
    [undefined, 600],
    ['10m', 1200],
    ['1h30m', 10800],
    ['90s', 180],
    ['1.5s', 3],
    ['100ms', 1],
  ])('activeDeadlineSeconds for timeout %s is twice it: %d', (timeout, seconds) => {
    const spec: HelmChartSpec = timeout === undefined ? { chart: oci } : { chart: oci, timeout };
    expect(install(spec).job.spec?.activeDeadlineSeconds).toBe(seconds);
  });

  it('retries with new pods (keeping failed ones for their logs), runs as helm-<name> with its token, and keeps the install Job (no TTL)', () => {
    const { job } = install({ chart: oci });
    expect(podOf(job)).toMatchObject({
      restartPolicy: 'Never',
      serviceAccountName: 'helm-podinfo',
      automountServiceAccountToken: true,
    });
    expect(job.spec?.ttlSecondsAfterFinished).toBeUndefined();
  });

  it('runs helm from the working dir, with every path and helm home relative to it', () => {
    const { job } = install({ chartContent: tinyChartContent, valuesContent: 'a: 1' }, undefined, {});
    const container = containerOf(job);
    expect(container.command).toEqual(['helm']);
    expect(container.workingDir).toBe(WORKING_DIR);
    const mounts = Object.fromEntries((container.volumeMounts ?? []).map((m) => [m.name, m.mountPath]));
    expect(mounts).toMatchObject({ values: `${WORKING_DIR}/values`, chart: `${WORKING_DIR}/chart` });
    const args = argsOf(job);
    expect(args).toContain('chart/chart.tgz');
    expect(args).toContain('values/values-001-HelmChart-valuesContent.yaml');
    for (const arg of args) expect(arg.startsWith('/')).toBe(false);
    for (const env of container.env ?? []) expect(env.value?.startsWith('/')).toBe(false);
    const volumes = Object.fromEntries((podOf(job).volumes ?? []).map((v) => [v.name, v]));
    expect(volumes.values?.secret?.secretName).toBe('chart-values-podinfo');
    expect(volumes.chart?.configMap?.name).toBe('chart-content-podinfo');
  });

  it('never puts values or Secret data in the environment or the arguments', () => {
    const canary = 'canary-3b1f9e';
    const { job } = install(
      {
        chart: oci,
        valuesContent: `a: ${canary}1`,
        values: { b: `${canary}2` },
        valuesSecrets: [{ name: 's', keys: ['k'] }],
      },
      { valuesContent: `c: ${canary}3`, values: { d: `${canary}4` } },
      { s: { k: `e: ${canary}5` } },
    );
    expect(JSON.stringify(job)).not.toContain(canary);
  });

  it('sets the helm storage driver from spec.driver, default secret', () => {
    const env = (spec: HelmChartSpec) => containerOf(install(spec).job).env?.find((e) => e.name === 'HELM_DRIVER');
    expect(env({ chart: oci })?.value).toBe('secret');
    expect(env({ chart: oci, driver: 'configmap' })?.value).toBe('configmap');
  });

  describe('image', () => {
    it('defaults to an image with the pinned helm', () => {
      expect(containerOf(install({ chart: oci }).job).image).toBe(DEFAULT_JOB_IMAGE);
      expect(DEFAULT_JOB_IMAGE.endsWith(`:${readPins().helm.replace(/^v/u, '')}`)).toBe(true);
    });
    it('is configurable', () => {
      const job = buildInstall({ chart: helmChart({ chart: oci }) }, { jobImage: 'registry.local/helm:4' }).job;
      expect(containerOf(job).image).toBe('registry.local/helm:4');
    });
    it('follows spec.jobImage, trimmed', () => {
      expect(containerOf(install({ chart: oci, jobImage: ' mine/helm:1 ' }).job).image).toBe('mine/helm:1');
      expect(containerOf(install({ chart: oci, jobImage: '  ' }).job).image).toBe(DEFAULT_JOB_IMAGE);
    });
  });

  describe('security contexts', () => {
    it("default to k3s's: non-root, RuntimeDefault seccomp, no escalation, no capabilities, read-only root", () => {
      const { job } = install({ chart: oci });
      expect(podOf(job).securityContext).toMatchObject({
        runAsNonRoot: true,
        seccompProfile: { type: 'RuntimeDefault' },
      });
      expect(containerOf(job).securityContext).toEqual({
        allowPrivilegeEscalation: false,
        capabilities: { drop: ['ALL'] },
        readOnlyRootFilesystem: true,
      });
    });
    it('are replaced whole by spec.podSecurityContext and spec.securityContext', () => {
      const { job } = install({
        chart: oci,
        podSecurityContext: { runAsUser: 1000, fsGroup: 2000 },
        securityContext: { privileged: false, runAsNonRoot: true },
      });
      expect(podOf(job).securityContext).toEqual({ runAsUser: 1000, fsGroup: 2000 });
      expect(containerOf(job).securityContext).toEqual({ privileged: false, runAsNonRoot: true });
    });
  });

  describe('bootstrap', () => {
    it('uses the host network, the local apiserver, a control-plane node and tolerates not-ready nodes', () => {
      const { job } = install({ chart: oci, bootstrap: true });
      const pod = podOf(job);
      expect(pod.hostNetwork).toBe(true);
      expect(pod.nodeSelector).toEqual({ 'node-role.kubernetes.io/control-plane': 'true' });
      const keys = (pod.tolerations ?? []).map((t) => t.key);
      expect(keys).toEqual(
        expect.arrayContaining([
          'node.kubernetes.io/not-ready',
          'node.kubernetes.io/network-unavailable',
          'node.cloudprovider.kubernetes.io/uninitialized',
          'CriticalAddonsOnly',
          'node-role.kubernetes.io/control-plane',
          'node-role.kubernetes.io/etcd',
        ]),
      );
      expect(containerOf(job).env).toEqual(
        expect.arrayContaining([
          { name: 'KUBERNETES_SERVICE_HOST', value: '127.0.0.1' },
          { name: 'KUBERNETES_SERVICE_PORT', value: '6443' },
        ]),
      );
    });
    it('follows the configured apiserver port', () => {
      const job = buildInstall({ chart: helmChart({ chart: oci, bootstrap: true }) }, { apiServerPort: 16443 }).job;
      expect(containerOf(job).env).toContainEqual({ name: 'KUBERNETES_SERVICE_PORT', value: '16443' });
    });
    it('is off by default', () => {
      const pod = podOf(install({ chart: oci }).job);
      expect(pod.hostNetwork).toBeUndefined();
      expect(pod.tolerations).toBeUndefined();
      expect(pod.nodeSelector).toBeUndefined();
      expect(containerOf(install({ chart: oci }).job).env?.map((e) => e.name)).not.toContain('KUBERNETES_SERVICE_HOST');
    });
  });
});

describe('settings', () => {
  it.each([
    ['failurePolicy defaults to reinstall', {}, undefined, 'reinstall'],
    ['the HelmChart sets it', { failurePolicy: 'abort' }, undefined, 'abort'],
    ['the HelmChartConfig overrides it when set', { failurePolicy: 'abort' }, { failurePolicy: 'retry' }, 'retry'],
    ['the HelmChartConfig leaves it when unset', { failurePolicy: 'abort' }, {}, 'abort'],
  ] as const)('%s', (_, spec, config, policy) => {
    const chart = helmChart({ chart: oci, ...spec });
    expect(chartSettingsOf(chart, config === undefined ? undefined : helmChartConfig(config)).failurePolicy).toBe(
      policy,
    );
  });
});

describe('delete Job', () => {
  const chart = helmChart({ chart: oci, targetNamespace: 'apps', timeout: '2m', backOffLimit: 5 });
  const { job, serviceAccount, clusterRoleBinding } = buildDelete(chart);

  it('runs helm uninstall <name> in the target namespace, ignoring a missing release, with the timeout', () => {
    expect(job.metadata?.name).toBe('helm-delete-podinfo');
    expect(job.metadata?.namespace).toBe('kube-system');
    expect(argsOf(job)).toEqual([
      'uninstall',
      'podinfo',
      '--namespace',
      'apps',
      '--ignore-not-found',
      '--wait',
      '--timeout',
      '2m',
    ]);
    expect(job.spec).toMatchObject({ backoffLimit: 5, activeDeadlineSeconds: 240 });
  });

  it('is kept 10 minutes after it finishes, so it has no owner that would collect it with the chart', () => {
    expect(job.spec?.ttlSecondsAfterFinished).toBe(600);
    expect(job.metadata?.ownerReferences).toBeUndefined();
  });

  it('fetches nothing: no egress annotation, no values', () => {
    expect(job.metadata?.annotations?.[EGRESS_ANNOTATION]).toBeUndefined();
    expect(podOf(job).volumes?.map((v) => v.name)).not.toContain('values');
    expect(job.metadata?.labels?.['helmcharts.helm.k3sm.io/action']).toBe('delete');
  });

  it('runs as the same identity', () => {
    expect(podOf(job).serviceAccountName).toBe('helm-podinfo');
    expect(serviceAccount.metadata?.name).toBe('helm-podinfo');
    expect(clusterRoleBinding.metadata?.name).toBe('helm-kube-system-podinfo');
  });
});

describe('planInstall', () => {
  it('refuses an insecure chart and builds nothing', () => {
    expect(planInstall({ chart: helmChart({ repo: 'http://x', chart: 'c' }) })).toEqual({
      ok: false,
      refusal: { reason: 'InsecureRepo', message: expect.stringContaining('http://') as string },
    });
  });

  it('refuses a missing required values Secret', () => {
    const plan = planInstall({ chart: helmChart({ chart: oci, valuesSecrets: [{ name: 's', keys: ['k'] }] }) });
    expect(plan.ok ? undefined : plan.refusal.reason).toBe('ValuesSecretNotFound');
  });

  it('builds a valid chart', () => {
    const plan = planInstall({ chart: helmChart(podinfoSpec) });
    expect(plan.ok && plan.objects.job.metadata?.name).toBe('helm-install-podinfo');
  });
});

describe('what an uninstall cleans up', () => {
  it("names every namespaced object an install leaves besides its Jobs, by its builder's kind and name", () => {
    const built: Record<string, KubernetesObject | string> = { ...install({ chartContent: tinyChartContent }) };
    const left = Object.entries(built).flatMap(([key, made]) =>
      typeof made !== 'object' || made.kind === 'Job' || made.kind === 'ClusterRoleBinding'
        ? []
        : [[key, { apiVersion: made.apiVersion, kind: made.kind, metadata: made.metadata }] as const],
    );
    const refs = installObjectRefs('kube-system', 'podinfo');
    expect(Object.keys(refs).sort()).toEqual(left.map(([key]) => key).sort());
    for (const [key, made] of left) {
      expect(made).toMatchObject(refs[key as keyof typeof refs]);
    }
  });
});
