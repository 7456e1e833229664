import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Client, Connection } from '@temporalio/client';
import { parseAllDocuments, stringify } from 'yaml';
import { UNINSTALL_FINALIZER, type ApiGroup, type HelmChart } from '../../src/api/index.js';
import { repoRoot } from '../../src/config/pins.js';
import { manifestClusterRole, manifestIdentityObjects } from '../../src/controller/manifests/index.js';
import { waitFor } from '../../src/lib/wait.js';
import { kubeConfigFromFile } from '../../src/kube/client.js';
import { ensureDigestKey } from '../../src/kube/digest-key.js';
import { chartWorkflowId } from '../../workflows/contract.js';
import { startControllerAs, type ControllerProcess } from './support/controller-process.js';
import { crdEstablished } from './support/crds.js';
import { apply, helm, readHelmChart } from './support/helmcharts.js';
import { freshNamespace, kubectl } from './support/kube.js';
import { readLease } from './support/leases.js';
import { testLayout, testLog } from './support/stack.js';

/**
 * deploy/ on a real apiserver: every object of the kustomization and of the Helm chart passes server-side
 * validation, the controller's ServiceAccount may do exactly what the controller does, and the real
 * `helmflow controller` process, running as that ServiceAccount, leads and serves a HelmChart without a
 * single Forbidden.
 */

const CONTROLLER = 'system:serviceaccount:helmflow-system:helmflow-controller';
const WORKER = 'system:serviceaccount:helmflow-system:helmflow-worker';
const CHART = path.join(repoRoot, 'deploy', 'chart', 'helmflow');

interface KubeObject {
  apiVersion: string;
  kind: string;
  metadata: { name: string; namespace?: string };
  rules?: unknown;
}

function ok(result: { status: number; stdout: string; stderr: string }, what: string): string {
  if (result.status !== 0) throw new Error(`${what} failed (exit ${result.status}): ${result.stderr}${result.stdout}`);
  return result.stdout;
}

function objectsOf(yamlText: string): KubeObject[] {
  return parseAllDocuments(yamlText)
    .map((d) => d.toJS() as KubeObject | null)
    .filter((o): o is KubeObject => o !== null);
}

const kustomized = () => ok(kubectl(['kustomize', path.join(repoRoot, 'deploy')]), 'kubectl kustomize deploy/');
const rendered = (args: string[] = []) =>
  ok(
    helm(['template', 'helmflow', CHART, '--namespace', 'helmflow-system', ...args]),
    `helm template ${args.join(' ')}`,
  );

/** The objects kubectl reports for an apply, one per line ("kind.group/name created (server dry run)"). */
const dryRunLines = (stdout: string) => stdout.split('\n').filter((l) => l.endsWith('(server dry run)'));

beforeAll(async () => {
  // The dry run needs the kinds to exist (the CRDs) and the namespace the objects go to; both are applied for
  // real, and the dry run then validates them again along with everything else.
  ok(
    kubectl([
      'apply',
      '--server-side',
      '--force-conflicts',
      '--field-manager=helmflow-deploy-e2e',
      '-f',
      path.join(repoRoot, 'deploy', 'crds', 'helm.k3sm.io.yaml'),
      '-f',
      path.join(repoRoot, 'deploy', 'helmflow', 'namespace.yaml'),
    ]),
    'applying the CRDs and the namespace',
  );
  await crdEstablished('helmcharts.helm.k3sm.io');
  await crdEstablished('helmchartconfigs.helm.k3sm.io');
});

describe('kubectl apply -k deploy/', () => {
  it('passes the apiserver validation of every object (server-side dry run)', () => {
    const objects = objectsOf(kustomized());
    expect(objects.map((o) => o.kind)).toEqual(
      expect.arrayContaining(['CustomResourceDefinition', 'Deployment', 'ClusterRole', 'ConfigMap', 'Namespace']),
    );
    const out = ok(kubectl(['apply', '--dry-run=server', '-k', path.join(repoRoot, 'deploy')]), 'dry run');
    expect(dryRunLines(out)).toHaveLength(objects.length);
  });

  it('the dry run is a real check: an object the apiserver refuses fails it', () => {
    const broken = kustomized().replace('replicas: 2', 'replicas: two');
    const result = kubectl(['apply', '--dry-run=server', '-f', '-'], broken);
    expect(result.status).not.toBe(0);
    expect(result.stderr).toMatch(/replicas/);
  });
});

describe('the Helm chart deploy/chart/helmflow', () => {
  const variants: [string, string[]][] = [
    ['default values', []],
    [
      'the auto-deploy directory and Temporal mTLS',
      ['--set', 'manifests.enabled=true', '--set', 'temporal.tls.secretName=temporal-tls'],
    ],
    ['helm.cattle.io', ['--set', 'group=helm.cattle.io']],
  ];

  it.each(variants)('passes helm lint with %s', (_, args) => {
    const out = ok(helm(['lint', '--strict', CHART, ...args]), 'helm lint');
    expect(out).toMatch(/1 chart\(s\) linted, 0 chart\(s\) failed/);
  });

  it.each(variants)('renders objects that pass the apiserver validation with %s', (_, args) => {
    const text = rendered(['--include-crds', ...args]);
    const objects = objectsOf(text);
    expect(objects.filter((o) => o.kind === 'Deployment').map((o) => o.metadata.name)).toEqual([
      'helmflow-controller',
      'helmflow-worker',
    ]);
    const out = ok(kubectl(['apply', '--dry-run=server', '-f', '-'], text), 'dry run of the rendered chart');
    expect(dryRunLines(out)).toHaveLength(objects.length);
  });

  it('refuses a group helmflow does not serve', () => {
    const result = helm(['template', 'helmflow', CHART, '--set', 'group=example.com']);
    expect(result.status).not.toBe(0);
    // values.schema.json refuses it before any template runs.
    expect(result.stderr).toMatch(/'\/group': value must be one of 'helm.k3sm.io', 'helm.cattle.io'/);
  });

  it('gives the controller the same rules as deploy/helmflow', () => {
    const rules = (objects: KubeObject[]) =>
      objects
        .filter((o) => ['ClusterRole', 'Role'].includes(o.kind) && o.metadata.name.startsWith('helmflow-'))
        .map((o) => ({ kind: o.kind, name: o.metadata.name, namespace: o.metadata.namespace, rules: o.rules }))
        .sort((a, b) => `${a.kind}/${a.name}`.localeCompare(`${b.kind}/${b.name}`));
    expect(rules(objectsOf(rendered()))).toEqual(rules(objectsOf(kustomized())));
  });

  it.each<ApiGroup>(['helm.k3sm.io', 'helm.cattle.io'])(
    'installs the manifest identity as src/controller/manifests generates it for %s',
    (group) => {
      const identity = objectsOf(rendered(['--set', 'manifests.enabled=true', '--set', `group=${group}`])).filter(
        (o) => o.metadata.name === 'k3sm-manifest-helm',
      );
      const byKind = (a: KubeObject, b: KubeObject) => a.kind.localeCompare(b.kind);
      expect(identity.sort(byKind)).toEqual((manifestIdentityObjects(group) as KubeObject[]).sort(byKind));
      expect(objectsOf(rendered()).filter((o) => o.metadata.name === 'k3sm-manifest-helm')).toEqual([]);
    },
  );
});

describe("the controller's ServiceAccount", () => {
  beforeAll(() => {
    // The identities and their RBAC for real: what the impersonation and the real process below act as.
    const rbacKinds = ['ServiceAccount', 'ClusterRole', 'ClusterRoleBinding', 'Role', 'RoleBinding'];
    applyForReal(objectsOf(kustomized()).filter((o) => rbacKinds.includes(o.kind)));
  });
  // The worker (cluster-admin) makes the digest key the controller may only read; here no worker runs.
  beforeAll(async () => {
    await ensureDigestKey(kubeConfigFromFile(testLayout().adminKubeconfig), 'kube-system', testLog);
  });

  const canI = (as: string, args: string[]) => kubectl(['auth', 'can-i', `--as=${as}`, ...args]);

  const allowed: string[][] = [
    ['get', 'customresourcedefinitions.apiextensions.k8s.io/helmcharts.helm.k3sm.io'],
    ['create', 'customresourcedefinitions.apiextensions.k8s.io/helmcharts.helm.k3sm.io'],
    ['patch', 'customresourcedefinitions.apiextensions.k8s.io/helmchartconfigs.helm.k3sm.io'],
    ['list', 'helmcharts.helm.k3sm.io', '--all-namespaces'],
    ['watch', 'helmcharts.helm.k3sm.io', '--all-namespaces'],
    ['patch', 'helmcharts.helm.k3sm.io', '-n', 'default'],
    ['list', 'helmchartconfigs.helm.k3sm.io', '--all-namespaces'],
    ['watch', 'helmchartconfigs.helm.k3sm.io', '--all-namespaces'],
    ['list', 'secrets', '--all-namespaces'],
    ['watch', 'secrets', '--all-namespaces'],
    ['create', 'leases.coordination.k8s.io', '-n', 'kube-system'],
    ['get', 'leases.coordination.k8s.io/k3sm-helm-controller', '-n', 'kube-system'],
    ['patch', 'leases.coordination.k8s.io/k3sm-helm-controller', '-n', 'kube-system'],
    ['get', 'secrets/helmflow-digest-key', '-n', 'kube-system'],
  ];
  it.each(allowed.map((args) => [args.join(' '), args] as const))('may %s', (_, args) => {
    const result = canI(CONTROLLER, args);
    expect({ args, answer: result.stdout.trim() }).toEqual({ args, answer: 'yes' });
  });

  const refused: string[][] = [
    ['create', 'clusterrolebindings'],
    ['bind', 'clusterroles/cluster-admin'],
    ['delete', 'secrets', '-n', 'default'],
    ['create', 'secrets', '-n', 'default'],
    ['get', 'secrets/helmflow-values-x', '-n', 'kube-system'],
    ['create', 'secrets', '-n', 'kube-system'],
    ['create', 'jobs.batch', '-n', 'default'],
    ['create', 'serviceaccounts/token', '-n', 'kube-system'],
    ['create', 'helmcharts.helm.k3sm.io', '-n', 'default'],
    ['delete', 'helmcharts.helm.k3sm.io', '-n', 'default'],
    ['update', 'helmcharts.helm.k3sm.io/status', '-n', 'default'],
    ['patch', 'customresourcedefinitions.apiextensions.k8s.io/widgets.example.com'],
    ['patch', 'leases.coordination.k8s.io/kube-controller-manager', '-n', 'kube-system'],
    ['create', 'leases.coordination.k8s.io', '-n', 'default'],
  ];
  it.each(refused.map((args) => [args.join(' '), args] as const))('may not %s', (_, args) => {
    const result = canI(CONTROLLER, args);
    expect({ args, answer: result.stdout.trim() }).toEqual({ args, answer: 'no' });
  });

  it('the worker may bind cluster-admin, which each chart Job identity needs', () => {
    expect(canI(WORKER, ['create', 'clusterrolebindings']).stdout.trim()).toBe('yes');
    expect(canI(WORKER, ['*', '*']).stdout.trim()).toBe('yes');
  });

  describe('running the real `helmflow controller` as that ServiceAccount', () => {
    let controller: ControllerProcess;
    let namespace: string;
    const chartName = 'deploy-probe';

    beforeAll(async () => {
      controller = await startControllerAs('helmflow-system', 'helmflow-controller', [
        '--task-queue',
        TASK_QUEUE,
        '--manifests-dir',
        '',
      ]);
      namespace = await freshNamespace('deploy');
    });

    afterAll(async () => {
      controller.dispose();
      await releaseChart(namespace, chartName);
    });

    it('serves /healthz and /readyz on the port the probes use', async () => {
      for (const probe of ['/healthz', '/readyz']) {
        const status = await waitFor(
          `${probe} to answer 200`,
          async () => {
            const response = await fetch(`http://127.0.0.1:${controller.port}${probe}`);
            return response.status === 200 ? response.status : undefined;
          },
          { timeoutMs: 60_000, intervalMs: 250 },
        );
        expect(status).toBe(200);
      }
    });

    it('takes the Lease kube-system/k3sm-helm-controller and starts leading', async () => {
      expect(await leaseHolder(controller)).toContain(`_${controller.pid}_`);
    });

    it("adds its finalizer to a HelmChart and signals the chart's workflow", async () => {
      apply({
        apiVersion: 'helm.k3sm.io/v1',
        kind: 'HelmChart',
        metadata: { name: chartName, namespace },
        spec: { repo: 'https://charts.example.invalid', chart: 'probe', version: '1.0.0' },
      });
      const chart = await finalized(namespace, chartName);
      expect(chart.metadata.finalizers).toEqual([UNINSTALL_FINALIZER]);
      expect(await workflowTaskQueue(namespace, chartName)).toBe(TASK_QUEUE);
    });

    it('stops on SIGTERM, releasing the Lease, and was never refused anything', async () => {
      expect(await controller.stop()).toBe(0);
      const lease = await readLease('kube-system', 'k3sm-helm-controller');
      expect(lease.spec?.holderIdentity ?? '').toBe('');
      expect(controller.logs()).toContain('released lease');
      expectNoRefusal(controller.logs());
    });
  });

  describe("with the chart's manifests.enabled RBAC, the controller sweeps an auto-deploy directory", () => {
    let controller: ControllerProcess;
    let directory: string;
    let namespace: string;
    const chartName = 'deploy-manifest-probe';

    beforeAll(async () => {
      // The chart's controller RBAC with the directory enabled, over the kustomization's (same names).
      const rbacKinds = ['ClusterRole', 'ClusterRoleBinding', 'Role', 'RoleBinding'];
      const rbac = objectsOf(rendered(['--set', 'manifests.enabled=true'])).filter(
        (o) => rbacKinds.includes(o.kind) && o.metadata.name.startsWith('helmflow-controller'),
      );
      expect(rbac.map((o) => o.metadata.name)).toContain('helmflow-controller-manifests');
      applyForReal(rbac);
      // The identity is absent, so the controller must create it with its own, narrow rights.
      for (const kind of ['clusterrolebinding', 'clusterrole']) kubectl(['delete', kind, 'k3sm-manifest-helm']);
      for (const kind of ['rolebinding', 'role', 'serviceaccount'])
        kubectl(['delete', kind, 'k3sm-manifest-helm', '-n', 'kube-system']);
      namespace = await freshNamespace('deploy-manifests');
      directory = mkdtempSync(path.join(tmpdir(), 'helmflow-deploy-manifests-'));
      const manifest = {
        apiVersion: 'helm.k3sm.io/v1',
        kind: 'HelmChart',
        metadata: { name: chartName, namespace },
        spec: { repo: 'https://charts.example.invalid', chart: 'probe', version: '1.0.0' },
      };
      writeFileSync(path.join(directory, 'probe.yaml'), stringify(manifest), { mode: 0o644 });
      controller = await startControllerAs('helmflow-system', 'helmflow-controller', [
        '--task-queue',
        TASK_QUEUE,
        '--manifests-dir',
        directory,
      ]);
    });

    afterAll(async () => {
      controller.dispose();
      rmSync(directory, { recursive: true, force: true });
      await releaseChart(namespace, chartName);
    });

    it('creates the manifest identity, applies the file as it, and serves the chart', async () => {
      await leaseHolder(controller);
      const chart = await finalized(namespace, chartName);
      const managers = (chart.metadata as { managedFields?: { manager?: string }[] }).managedFields ?? [];
      expect(managers.map((m) => m.manager)).toContain('helmflow-manifests');
      const identity = ok(kubectl(['get', 'clusterrole', 'k3sm-manifest-helm', '-o', 'json']), 'reading the identity');
      expect((JSON.parse(identity) as { rules: unknown }).rules).toEqual(manifestClusterRole('helm.k3sm.io').rules);
      expect(await workflowTaskQueue(namespace, chartName)).toBe(TASK_QUEUE);
      expect(await controller.stop()).toBe(0);
      expect(controller.logs()).not.toContain('auto-deploy directory not used');
      expectNoRefusal(controller.logs());
    });
  });
});

const TASK_QUEUE = 'helmflow-deploy-e2e';

function applyForReal(objects: KubeObject[]): void {
  const text = objects.map((o) => JSON.stringify(o)).join('\n---\n');
  ok(
    kubectl(['apply', '--server-side', '--force-conflicts', '--field-manager=helmflow-deploy-e2e', '-f', '-'], text),
    'applying RBAC',
  );
}

/** Waits until the controller process holds the leader Lease and has started its chart controller. */
async function leaseHolder(controller: ControllerProcess): Promise<string> {
  const holder = await waitFor(
    'the controller process to hold the Lease',
    async () => {
      const identity = (await readLease('kube-system', 'k3sm-helm-controller')).spec?.holderIdentity;
      return identity?.includes(`_${controller.pid}_`) === true ? identity : undefined;
    },
    { timeoutMs: 60_000, intervalMs: 250 },
  );
  await waitFor('the controller to start leading', () => controller.logs().includes('starting the chart controller'), {
    timeoutMs: 30_000,
  });
  return holder;
}

async function finalized(namespace: string, name: string): Promise<HelmChart> {
  return waitFor(
    `the finalizer on HelmChart ${namespace}/${name}`,
    async () => {
      const current = await readHelmChart(namespace, name);
      return current?.metadata.finalizers?.includes(UNINSTALL_FINALIZER) === true ? current : undefined;
    },
    { timeoutMs: 60_000, intervalMs: 250 },
  );
}

/** The task queue of the chart's workflow, once the controller's signalWithStart has started it. */
async function workflowTaskQueue(namespace: string, name: string): Promise<string> {
  const connection = await Connection.connect({ address: testLayout().temporalAddress });
  try {
    const client = new Client({ connection });
    const id = chartWorkflowId({ group: 'helm.k3sm.io', namespace, name });
    const described = await waitFor(
      `workflow ${id} to be started by the controller's signal`,
      () => client.workflow.getHandle(id).describe(),
      { timeoutMs: 60_000, intervalMs: 250 },
    );
    return described.taskQueue;
  } finally {
    await connection.close();
  }
}

/** Any refusal by RBAC (of a watch, an apply, a patch, a token) is logged with the apiserver's reason. */
function expectNoRefusal(logs: string): void {
  // A watch of a CRD created a moment ago may be told to retry (429) while its cache initialises: not a refusal.
  expect(logs).not.toMatch(/forbidden|could not start leading|lease attempt failed|could not signal/i);
}

/** No worker runs here to release the finalizer: drop it, delete the namespace, end the started workflow. */
async function releaseChart(namespace: string, name: string): Promise<void> {
  if ((await readHelmChart(namespace, name)) !== undefined) {
    const patch = '{"metadata":{"finalizers":null}}';
    kubectl(['patch', 'helmchart.helm.k3sm.io', name, '-n', namespace, '--type=merge', '-p', patch]);
  }
  kubectl(['delete', 'namespace', namespace, '--wait=false']);
  const connection = await Connection.connect({ address: testLayout().temporalAddress });
  try {
    const id = chartWorkflowId({ group: 'helm.k3sm.io', namespace, name });
    await new Client({ connection }).workflow
      .getHandle(id)
      .terminate('deploy e2e done')
      .catch(() => undefined);
  } finally {
    await connection.close();
  }
}
