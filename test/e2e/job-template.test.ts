import { CustomObjectsApi, type V1Job, type V1Pod } from '@kubernetes/client-node';
import { stringify } from 'yaml';
import {
  API_VERSION,
  DEFAULT_API_GROUP,
  HELM_CHART_CONFIG_KIND,
  HELM_CHART_CONFIG_PLURAL,
  HELM_CHART_KIND,
  HELM_CHART_PLURAL,
  apiVersionOf,
  type HelmChart,
  type HelmChartConfig,
  type HelmChartSpec,
} from '../../src/api/index.js';
import { planInstall, type InstallObjects } from '../../src/build/index.js';
import { WaitAborted, waitFor } from '../../src/lib/wait.js';
import { buildChart, releaseValues, valuesConfigMapName, valuesInManifest, type TestChart } from './support/charts.js';
import { crdEstablished, installCrds } from './support/crds.js';
import { helm } from './support/helmcharts.js';
import { clients, freshNamespace, kubeConfig, kubectl } from './support/kube.js';
import { jobPods } from './support/jobs.js';

/**
 * Issue 3, last point: the install Job exactly as src/build builds it runs on the native node. First with its
 * helm command swapped from `upgrade --install` to `template` (every other argument kept), so its log shows what
 * helm rendered from the mounted values, in the order the builders chose; then unmodified, as a real install
 * against the test apiserver, with the chart's ServiceAccount and ClusterRoleBinding.
 */

const group = DEFAULT_API_GROUP;
const customObjects = () => kubeConfig().makeApiClient(CustomObjectsApi);

/**
 * The values layers, lowest precedence first. Layer i sets the keys k<i> … k8 to its own name, so in the values
 * helm ends up with, each key k<i> names the last layer that set it: k<i> = LAYERS[i] only if every later layer
 * won over every earlier one.
 */
const LAYERS = [
  'chart',
  'hc-valuesContent',
  'hc-values',
  'hc-valuesSecret-first',
  'hc-valuesSecret-second',
  'hcc-valuesContent',
  'hcc-values',
  'hcc-valuesSecret',
  'set',
] as const;
type Layer = (typeof LAYERS)[number];

function layer(name: Layer): Record<string, string> {
  const from = LAYERS.indexOf(name);
  return Object.fromEntries(LAYERS.slice(from).map((_, i) => [`k${from + i}`, name]));
}

/** set entries: k8 (a string, --set-file), and k3s's typing. */
const SET: Record<string, number | string> = {
  k8: 'set',
  count: 3,
  enabled: 'true',
  ratio: '1.10',
  message: 'hello, world',
  'nested.key': 'deep',
};

const EXPECTED_VALUES = {
  ...Object.fromEntries(LAYERS.map((name, i) => [`k${i}`, name])),
  count: 3,
  enabled: true,
  ratio: '1.10',
  message: 'hello, world',
  nested: { key: 'deep' },
};

const namespaces: string[] = [];
const bindings: string[] = [];
const crds: string[] = [];

async function namespace(prefix: string): Promise<string> {
  const name = await freshNamespace(prefix);
  namespaces.push(name);
  return name;
}

afterAll(() => {
  // Cluster-scoped bindings to cluster-admin outlive their namespace; remove them and everything else made here.
  if (bindings.length > 0) kubectl(['delete', 'clusterrolebinding', '--ignore-not-found', ...bindings]);
  if (crds.length > 0) kubectl(['delete', 'crd', '--wait=false', '--ignore-not-found', ...crds]);
  if (namespaces.length > 0) kubectl(['delete', 'namespace', '--wait=false', '--ignore-not-found', ...namespaces]);
});

/**
 * Creates, in `ns`, the values Secrets the chart names, the HelmChart and its HelmChartConfig; reads them back as
 * a controller would, and builds the install from what the apiserver stored.
 */
async function layeredInstall(
  ns: string,
  name: string,
  chart: TestChart,
  spec: HelmChartSpec,
): Promise<InstallObjects> {
  const { core } = clients();
  await core.createNamespacedSecret({
    namespace: ns,
    body: {
      metadata: { name: 'hc-values' },
      stringData: {
        'first.yaml': stringify(layer('hc-valuesSecret-first')),
        'second.yaml': stringify(layer('hc-valuesSecret-second')),
        'unlisted.yaml': 'k8: a key no valuesSecrets entry names\n',
      },
    },
  });
  await core.createNamespacedSecret({
    namespace: ns,
    body: { metadata: { name: 'hcc-values' }, stringData: { 'overlay.yaml': stringify(layer('hcc-valuesSecret')) } },
  });
  const objects = customObjects();
  const created = (await objects.createNamespacedCustomObject({
    group,
    version: API_VERSION,
    namespace: ns,
    plural: HELM_CHART_PLURAL,
    body: {
      apiVersion: apiVersionOf(group),
      kind: HELM_CHART_KIND,
      metadata: { name },
      spec: {
        chartContent: chart.chartContent,
        // Ignored: chartContent wins (k3s semantics), so nothing is fetched.
        chart: 'ignored',
        repo: 'https://charts.example.com',
        version: '9.9.9',
        valuesContent: stringify(layer('hc-valuesContent')),
        values: layer('hc-values'),
        valuesSecrets: [{ name: 'hc-values', keys: ['first.yaml', 'second.yaml'] }],
        set: SET,
        ...spec,
      },
    },
  })) as HelmChart;
  const config = (await objects.createNamespacedCustomObject({
    group,
    version: API_VERSION,
    namespace: ns,
    plural: HELM_CHART_CONFIG_PLURAL,
    body: {
      apiVersion: apiVersionOf(group),
      kind: HELM_CHART_CONFIG_KIND,
      metadata: { name },
      spec: {
        valuesContent: stringify(layer('hcc-valuesContent')),
        values: layer('hcc-values'),
        valuesSecrets: [{ name: 'hcc-values', keys: ['overlay.yaml'] }],
      },
    },
  })) as HelmChartConfig;
  const secrets: Record<string, Record<string, string>> = {};
  for (const secretName of ['hc-values', 'hcc-values']) {
    const secret = await core.readNamespacedSecret({ name: secretName, namespace: ns });
    secrets[secretName] = Object.fromEntries(
      Object.entries(secret.data ?? {}).map(([key, value]) => [key, Buffer.from(value, 'base64').toString('utf8')]),
    );
  }
  const plan = planInstall({ chart: created, config, secrets });
  if (!plan.ok) throw new Error(`the install was refused: ${plan.refusal.message}`);
  return plan.objects;
}

/** Creates the HelmChart `name` in `ns` with `spec`, and builds its install from what the apiserver stored. */
async function plainInstall(ns: string, name: string, spec: HelmChartSpec): Promise<InstallObjects> {
  const created = (await customObjects().createNamespacedCustomObject({
    group,
    version: API_VERSION,
    namespace: ns,
    plural: HELM_CHART_PLURAL,
    body: { apiVersion: apiVersionOf(group), kind: HELM_CHART_KIND, metadata: { name }, spec },
  })) as HelmChart;
  const plan = planInstall({ chart: created });
  if (!plan.ok) throw new Error(`the install was refused: ${plan.refusal.message}`);
  return plan.objects;
}

/** Creates the Job's identity and inputs, as the install activity does; the binding only when asked. */
async function createInputs(objects: InstallObjects, withBinding: boolean): Promise<void> {
  const { core } = clients();
  const ns = objects.job.metadata?.namespace ?? '';
  await core.createNamespacedServiceAccount({ namespace: ns, body: objects.serviceAccount });
  if (withBinding) await createBinding(objects);
  await core.createNamespacedSecret({ namespace: ns, body: objects.valuesSecret });
  if (objects.chartContent === undefined) throw new Error('a chartContent install must build its ConfigMap');
  await core.createNamespacedConfigMap({ namespace: ns, body: objects.chartContent });
}

async function createBinding(objects: InstallObjects): Promise<void> {
  bindings.push(objects.clusterRoleBinding.metadata?.name ?? '');
  await clients().rbac.createClusterRoleBinding({ body: objects.clusterRoleBinding });
}

/**
 * The built Job with `helm upgrade --install` swapped for `helm template`, every other argument kept in order.
 * `--server-side=auto` is the one argument `helm template` (like `helm install`) refuses: there it is a boolean.
 */
function asTemplateJob(job: V1Job): V1Job {
  const copy = structuredClone(job);
  const container = copy.spec?.template.spec?.containers[0];
  const args = container?.args ?? [];
  if (container === undefined || args[0] !== 'upgrade' || args[1] !== '--install') {
    throw new Error(`the built Job does not run helm upgrade --install: ${JSON.stringify(container)}`);
  }
  container.args = ['template', ...args.slice(2).filter((arg) => arg !== '--server-side=auto')];
  return copy;
}

const containerStatus = (pod: V1Pod | undefined) => pod?.status?.containerStatuses?.[0];

/** Every container of a pod that ran, init containers (pre-flight renders first) before the helm container. */
const containerStatuses = (pod: V1Pod) => [
  ...(pod.status?.initContainerStatuses ?? []),
  ...(pod.status?.containerStatuses ?? []),
];

/**
 * Waits for the Job to complete. The built Job restarts a failing helm in place (restartPolicy OnFailure, backoff
 * 1000), so the wait ends at once, with helm's output, when a run fails (in pre-flight's init container or in the
 * helm container) instead of waiting for the deadline.
 */
async function jobCompleted(ns: string, name: string): Promise<void> {
  await waitFor(
    `job ${ns}/${name} to complete`,
    async () => {
      const job = await clients().batch.readNamespacedJob({ name, namespace: ns });
      if (job.status?.conditions?.some((c) => c.type === 'Complete' && c.status === 'True') === true) return true;
      for (const pod of await jobPods(ns, name)) {
        for (const status of containerStatuses(pod)) {
          const failed = status.lastState?.terminated ?? status.state?.terminated;
          if (failed === undefined || failed.exitCode === 0) continue;
          const previous = status.lastState?.terminated === undefined ? [] : ['--previous'];
          const logs = kubectl(['logs', '-n', ns, pod.metadata?.name ?? '', '-c', status.name, ...previous]);
          throw new WaitAborted(
            `helm exited ${failed.exitCode} in ${ns}/${name} (${status.name}):\n${logs.stdout}${logs.stderr}`,
          );
        }
      }
      return undefined;
    },
    { timeoutMs: 120_000, intervalMs: 300 },
  );
}

describe('the install Job built by src/build, on the native node', () => {
  let chart: TestChart;

  beforeAll(async () => {
    await installCrds(group);
    chart = buildChart({ name: 'layers', values: layer('chart') });
  });

  it('renders with `helm template`: the built command line, its relative paths and the mounted values are right', async () => {
    const ns = await namespace('template');
    const target = `${ns}-target`;
    const name = 'layers';
    const objects = await layeredInstall(ns, name, chart, { targetNamespace: target, createNamespace: true });

    // What the builders chose: values as files, in order, relative to the working dir; set entries last.
    const container = objects.job.spec?.template.spec?.containers[0];
    const valuesArgs = (container?.args ?? []).filter((_, i, all) => all[i - 1] === '--values');
    expect(valuesArgs).toEqual([
      'values/values-001-HelmChart-valuesContent.yaml',
      'values/values-002-HelmChart-values.yaml',
      'values/values-003-HelmChart-valuesSecret.yaml',
      'values/values-004-HelmChart-valuesSecret.yaml',
      'values/values-005-HelmChartConfig-valuesContent.yaml',
      'values/values-006-HelmChartConfig-values.yaml',
      'values/values-007-HelmChartConfig-valuesSecret.yaml',
    ]);
    // The Secret holds those files, then the set strings (set-NNN, see the set-file test below).
    expect(Object.keys(objects.valuesSecret.data ?? {})).toEqual([
      ...valuesArgs.map((p) => p.replace('values/', '')),
      'set-001',
      'set-002',
      'set-003',
      'set-004',
    ]);

    await createInputs(objects, true);
    const job = asTemplateJob(objects.job);
    const jobName = job.metadata?.name ?? '';
    expect(jobName).toBe(`helm-install-${name}`);
    await clients().batch.createNamespacedJob({ namespace: ns, body: job });
    await jobCompleted(ns, jobName);

    const [pod] = await jobPods(ns, jobName);
    expect(pod?.spec?.nodeName).toBe('helmflow-native');
    expect(pod?.spec?.containers[0]?.args?.slice(0, 4)).toEqual(['template', name, 'chart/chart.tgz', '--namespace']);
    const logs = kubectl(['logs', '-n', ns, `job/${jobName}`]);
    expect(logs.status).toBe(0);
    // The rendered manifest: the release's ConfigMap, in the target namespace, holding the merged values.
    expect(logs.stdout).toContain('# Source: layers/templates/values-configmap.yaml');
    expect(logs.stdout).toContain(`name: ${valuesConfigMapName(name)}\n  namespace: ${target}\n`);
    expect(valuesInManifest(logs.stdout, name)).toEqual(EXPECTED_VALUES);
    // helm template talks to no cluster: nothing was installed.
    expect(await releaseValues(target, name)).toBeUndefined();
  });

  it("stops with helm's message in the Job log when the chart fails to render", async () => {
    const ns = await namespace('template-fail');
    const name = 'layers';
    const objects = await layeredInstall(ns, name, chart, {
      set: { ...SET, fail: 'rendering refused on purpose' },
    });
    await createInputs(objects, true);
    const job = asTemplateJob(objects.job);
    const jobName = job.metadata?.name ?? '';
    await clients().batch.createNamespacedJob({ namespace: ns, body: job });
    await expect(jobCompleted(ns, jobName)).rejects.toThrow(/helm exited 1[^]*rendering refused on purpose/u);
  });

  it('installs for real, unmodified: as the chart ServiceAccount, allowed only by the built ClusterRoleBinding', async () => {
    const ns = await namespace('install');
    const target = `${ns}-target`;
    namespaces.push(target);
    const name = 'layers';
    const objects = await layeredInstall(ns, name, chart, { targetNamespace: target, createNamespace: true });
    await createInputs(objects, false);
    const { batch, core } = clients();
    const jobName = objects.job.metadata?.name ?? '';
    await batch.createNamespacedJob({ namespace: ns, body: objects.job });

    // Without the binding the ServiceAccount may do nothing: helm's first run is forbidden, and the pod restarts.
    const refused = await waitFor(
      'the first helm run to be forbidden',
      async () => {
        const [pod] = await jobPods(ns, jobName);
        const status = containerStatus(pod);
        const exit = status?.lastState?.terminated ?? status?.state?.terminated;
        return exit === undefined ? undefined : { pod: pod?.metadata?.name ?? '', exit, status };
      },
      { timeoutMs: 60_000 },
    );
    expect(refused.exit.exitCode).toBe(1);
    // The pod may have restarted since: read the run before this one too.
    const forbidden =
      kubectl(['logs', '-n', ns, refused.pod]).stdout + kubectl(['logs', '-n', ns, refused.pod, '--previous']).stdout;
    expect(forbidden).toContain('forbidden');
    expect(forbidden).toContain(`system:serviceaccount:${ns}:helm-${name}`);

    // The built binding grants cluster-admin; the Job's next run (a new pod) installs.
    expect(objects.clusterRoleBinding.roleRef.name).toBe('cluster-admin');
    await createBinding(objects);
    await waitFor(
      `job ${ns}/${jobName} to complete`,
      async () => {
        const job = await batch.readNamespacedJob({ name: jobName, namespace: ns });
        return job.status?.conditions?.some((c) => c.type === 'Complete' && c.status === 'True') === true;
      },
      { timeoutMs: 120_000 },
    );

    // --create-namespace made the target namespace; the release's ConfigMap is there with the merged values.
    expect(await releaseValues(target, name)).toEqual(EXPECTED_VALUES);
    const cm = await core.readNamespacedConfigMap({ name: valuesConfigMapName(name), namespace: target });
    expect(cm.data?.chart).toBe('layers-0.1.0');
    expect(cm.data?.revision).toBe('1');
    expect(cm.metadata?.labels?.['app.kubernetes.io/managed-by']).toBe('Helm');
    // HELM_DRIVER=secret: the release record is a Secret named after the HelmChart.
    const releases = await core.listNamespacedSecret({ namespace: target, labelSelector: `owner=helm,name=${name}` });
    expect(releases.items.map((s) => [s.metadata?.name, s.type, s.metadata?.labels?.status])).toEqual([
      [`sh.helm.release.v1.${name}.v1`, 'helm.sh/release.v1', 'deployed'],
    ]);
    // With restartPolicy Never the Job retried in a new pod: the succeeded one holds the install's log.
    const succeeded = (await jobPods(ns, jobName)).find((p) => p.status?.phase === 'Succeeded');
    const log = kubectl(['logs', '-n', ns, succeeded?.metadata?.name ?? '']).stdout;
    expect(log).toContain(`Release "${name}" does not exist. Installing it now.`);
    // Values travel as files only: none of them is in the command line or the environment.
    const pod = (await jobPods(ns, jobName))[0];
    const spec = JSON.stringify(pod?.spec?.containers[0] ?? {});
    for (const value of ['hc-valuesContent', 'hcc-values', 'hc-valuesSecret-first']) expect(spec).not.toContain(value);
  });

  describe('set strings, as --set-file from the values Secret', () => {
    /**
     * Strings with commas, backslashes and braces-free text, keys with dots, escaped dots, brackets and escaped
     * commas, beside entries k3s types with --set. Every string value is distinctive, to look for it in the Job.
     */
    const TRICKY: Record<string, number | string> = {
      message: 'hello, world, again',
      'annotations.example\\.com/role': 'dotted-key, value',
      'servers[0].host': 'first.example.com',
      'servers[1].host': 'second.example.com',
      path: 'C:\\Users\\helm',
      escaped: 'escaped\\\\back\\,slash',
      'key\\,with\\,commas': 'comma-key-value',
      count: 3,
      enabled: 'true',
      nothing: 'null',
      ratio: '1.10',
    };

    /** What k3s (and helmflow before --set-file) passed for a set entry: --set-string with its commas escaped. */
    function k3sSetArgs(set: Record<string, number | string>): string[] {
      return Object.keys(set)
        .sort()
        .flatMap((key) => {
          const value = set[key] ?? '';
          if (typeof value === 'number' || ['true', 'false', 'null'].includes(value.toLowerCase())) {
            return ['--set', `${key}=${String(value)}`];
          }
          const escaped = value.replace(/\\*,/gu, (run) => (run.length % 2 === 1 ? `\\${run}` : run));
          return ['--set-string', `${key}=${escaped}`];
        });
    }

    function userValues(ns: string, release: string): unknown {
      const got = helm(['get', 'values', release, '-n', ns, '-o', 'json']);
      if (got.status !== 0) throw new Error(`helm get values ${release}: ${got.stderr}`);
      return JSON.parse(got.stdout) as unknown;
    }

    it('gives the release the typed values --set-string gave it, and none of the strings is in the Job', async () => {
      const ns = await namespace('set-file');
      const plain = buildChart({ name: 'plain' });
      // Before: k3s's arguments, run by the pinned helm as an operator would.
      const before = helm(['install', 'before', plain.path, '-n', ns, '--wait', ...k3sSetArgs(TRICKY)]);
      expect(before.stderr).toBe('');
      expect(before.status).toBe(0);

      // After: the Job src/build builds for a HelmChart with these set entries, run unmodified on the native node.
      const objects = await plainInstall(ns, 'after', { chartContent: plain.chartContent, set: TRICKY });
      await createInputs(objects, true);
      const jobName = objects.job.metadata?.name ?? '';
      await clients().batch.createNamespacedJob({ namespace: ns, body: objects.job });
      await jobCompleted(ns, jobName);

      const values = userValues(ns, 'after');
      expect(values).toEqual(userValues(ns, 'before'));
      // Spelled out, so the comparison cannot pass by both being wrong the same way.
      expect(values).toEqual({
        message: 'hello, world, again',
        annotations: { 'example.com/role': 'dotted-key, value' },
        servers: [{ host: 'first.example.com' }, { host: 'second.example.com' }],
        path: 'C:Usershelm',
        escaped: 'escaped\\back,slash',
        'key,with,commas': 'comma-key-value',
        count: 3,
        enabled: true,
        nothing: null,
        ratio: '1.10',
      });

      // The Job's pod (what the native node ran) carries keys and file paths, no string value.
      const [pod] = await jobPods(ns, jobName);
      const container = pod?.spec?.containers[0];
      const args = container?.args ?? [];
      expect(args).toEqual(objects.job.spec?.template.spec?.containers[0]?.args);
      expect(args).toEqual(expect.arrayContaining(['--set-file', 'message=values/set-004', '--set', 'count=3']));
      const shown = [...args, ...(container?.env ?? []).map((e) => `${e.name}=${e.value ?? ''}`)];
      const strings = Object.values(TRICKY).filter((v) => typeof v === 'string' && !['true', 'null'].includes(v));
      expect(strings).toHaveLength(8);
      for (const value of [...strings.map(String), 'C:Usershelm', 'hello']) {
        expect(shown.filter((text) => text.includes(value))).toEqual([]);
      }
    });
  });

  it('installs a chart whose crds/ defines the kind its own templates create (helm installs crds/ first)', async () => {
    const ns = await namespace('crds');
    const target = `${ns}-target`;
    namespaces.push(target);
    const withCrd = buildChart({ name: 'widgets', crd: true, values: layer('chart') });
    const crd = withCrd.crd;
    if (crd === undefined) throw new Error('buildChart({ crd: true }) returned no CRD');
    crds.push(crd.name);
    const objects = await layeredInstall(ns, 'widgets', withCrd, {
      targetNamespace: target,
      createNamespace: true,
      set: { ...SET, widgetSize: 'large' },
    });
    await createInputs(objects, true);
    await clients().batch.createNamespacedJob({ namespace: ns, body: objects.job });
    await jobCompleted(ns, objects.job.metadata?.name ?? '');

    await crdEstablished(crd.name);
    const widget = (await customObjects().getNamespacedCustomObject({
      group: crd.group,
      version: 'v1',
      namespace: target,
      plural: crd.plural,
      name: 'widgets',
    })) as { spec?: { size?: string } };
    expect(widget.spec?.size).toBe('large');
    expect(await releaseValues(target, 'widgets')).toEqual({ ...EXPECTED_VALUES, widgetSize: 'large' });
  });
});
