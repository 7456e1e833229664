import { CoordinationV1Api } from '@kubernetes/client-node';
import { mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { readPins } from '../../src/config/pins.js';
import { processesUnder } from '../../src/devstack/process.js';
import { waitFor } from '../../src/lib/wait.js';
import { clients, freshNamespace, kubeConfig, kubectl } from './support/kube.js';
import { installCrds } from './support/crds.js';
import { startFailingWebhook, type FailingWebhook } from './support/failing-webhook.js';
import { commandJob, createHelmJob, jobFinished, jobPods } from './support/jobs.js';
import { testLayout } from './support/stack.js';

/** Waits until the Job's pod runs and its process (found by `cmdline`) is up; returns the pod's name. */
async function runningPodOf(namespace: string, job: string, cmdline: string): Promise<string> {
  return waitFor(`the pod of ${job} to run`, async () => {
    const [pod] = await jobPods(namespace, job);
    const up = processesUnder(testLayout().podsDir).some((p) => p.cmdline.includes(cmdline));
    return pod?.status?.phase === 'Running' && up ? pod.metadata?.name : undefined;
  });
}

async function podGone(namespace: string, name: string): Promise<void> {
  await waitFor(
    `pod ${name} to be gone`,
    () =>
      clients()
        .core.readNamespacedPod({ name, namespace })
        .then(
          () => false,
          () => true,
        ),
    { timeoutMs: 30_000 },
  );
}

beforeAll(async () => {
  // The test Jobs are controlled by HelmCharts, as real helm Jobs are (support/jobs.ts asHelmJob).
  await installCrds('helm.k3sm.io');
});

describe('the native node runs helm Jobs as host processes', () => {
  it('runs `helm version` to completion, and kubectl logs job/<name> prints the pinned version', async () => {
    const ns = await freshNamespace('helm-version');
    await createHelmJob(ns, commandJob('helm-version', ['helm', 'version']));
    expect(await jobFinished(ns, 'helm-version')).toEqual(expect.objectContaining({ type: 'Complete' }));
    const logs = kubectl(['logs', '-n', ns, 'job/helm-version']);
    expect(logs.stderr).toBe('');
    expect(logs.stdout).toContain(`Version:"${readPins().helm}"`);
    const [pod] = await jobPods(ns, 'helm-version');
    expect(pod?.spec?.nodeName).toBe('helmflow-native');
    expect(pod?.status?.containerStatuses?.[0]?.state?.terminated).toEqual(
      expect.objectContaining({ exitCode: 0, reason: 'Completed' }),
    );
  });

  it('lets the real Job controller retry a failing command up to backoffLimit, then fail the Job', async () => {
    const ns = await freshNamespace('backoff');
    await createHelmJob(ns, commandJob('fails', ['sh', '-c', 'echo attempt; exit 1'], { backoffLimit: 1 }));
    expect(await jobFinished(ns, 'fails', 120_000)).toEqual({ type: 'Failed', reason: 'BackoffLimitExceeded' });
    const pods = await jobPods(ns, 'fails');
    expect(pods).toHaveLength(2);
    for (const pod of pods) {
      expect(pod.status?.phase).toBe('Failed');
      expect(pod.status?.containerStatuses?.[0]?.state?.terminated?.exitCode).toBe(1);
    }
  });

  it('restarts a container in place under restartPolicy OnFailure and counts the restart', async () => {
    const ns = await freshNamespace('onfailure');
    // The first run leaves a marker in its home directory and fails; the restart finds it and succeeds.
    const script = 'if [ -f "$HOME/ran-before" ]; then echo second run; else touch "$HOME/ran-before"; exit 3; fi';
    await createHelmJob(ns, commandJob('flaky', ['sh', '-c', script], { backoffLimit: 3, restartPolicy: 'OnFailure' }));
    expect(await jobFinished(ns, 'flaky')).toEqual(expect.objectContaining({ type: 'Complete' }));
    const [pod] = await jobPods(ns, 'flaky');
    const status = pod?.status?.containerStatuses?.[0];
    expect(status?.restartCount).toBe(1);
    expect(status?.lastState?.terminated?.exitCode).toBe(3);
    expect(kubectl(['logs', '-n', ns, pod?.metadata?.name ?? '']).stdout).toBe('second run\n');
  });

  it('ends a Job at activeDeadlineSeconds and kills its process', async () => {
    const ns = await freshNamespace('deadline');
    const marker = `helmflow-deadline-${Date.now()}`;
    await createHelmJob(
      ns,
      commandJob('sleeper', ['sh', '-c', `exec sleep 300 # ${marker}`], { activeDeadlineSeconds: 3 }),
    );
    await waitFor('the sleeper process to start', () => processesUnder(testLayout().podsDir).length > 0 || undefined, {
      timeoutMs: 30_000,
    });
    expect(await jobFinished(ns, 'sleeper')).toEqual({ type: 'Failed', reason: 'DeadlineExceeded' });
    await waitFor(
      'the sleeper process to be gone',
      () => !processesUnder(testLayout().podsDir).some((p) => p.cmdline.includes('sleep 300')),
      { timeoutMs: 40_000 },
    );
  });

  it('kills the process when its pod is deleted, then lets the pod go', async () => {
    const ns = await freshNamespace('delete');
    const { core } = clients();
    await createHelmJob(ns, commandJob('sleeper', ['sleep', '301']));
    const name = await runningPodOf(ns, 'sleeper', 'sleep 301');
    await core.deleteNamespacedPod({ name, namespace: ns, gracePeriodSeconds: 5 });
    await podGone(ns, name);
    expect(processesUnder(testLayout().podsDir).some((p) => p.cmdline.includes('sleep 301'))).toBe(false);
  });

  it('KILLs a process that ignores TERM once the grace period is over', async () => {
    const ns = await freshNamespace('stubborn');
    const { core } = clients();
    const command = ['sh', '-c', 'trap "" TERM; sleep 302 & wait; sleep 302'];
    await createHelmJob(ns, commandJob('ignores-term', command, { terminationGracePeriodSeconds: 2 }));
    const name = await runningPodOf(ns, 'ignores-term', 'sleep 302');
    const deleted = Date.now();
    await core.deleteNamespacedPod({ name, namespace: ns });
    await podGone(ns, name);
    // Not before the grace period (TERM was ignored), and nothing of its process group survives.
    expect(Date.now() - deleted).toBeGreaterThanOrEqual(2_000);
    expect(processesUnder(testLayout().podsDir).some((p) => p.cmdline.includes('sleep 302'))).toBe(false);
  });

  it('keeps its Node Ready with a Lease renewed like a kubelet', async () => {
    const { core } = clients();
    const node = await core.readNode({ name: 'helmflow-native' });
    const ready = node.status?.conditions?.find((c) => c.type === 'Ready');
    expect(ready?.status).toBe('True');
    expect(node.status?.daemonEndpoints?.kubeletEndpoint?.Port).toBe(testLayout().ports.nativeNodeKubelet);
    expect(node.status?.addresses).toEqual(expect.arrayContaining([{ type: 'InternalIP', address: '127.0.0.1' }]));
    const coordination = kubeConfig().makeApiClient(CoordinationV1Api);
    const first = await coordination.readNamespacedLease({ name: 'helmflow-native', namespace: 'kube-node-lease' });
    expect(first.spec?.holderIdentity).toBe('helmflow-native');
    await waitFor(
      'the node Lease to be renewed',
      async () => {
        const lease = await coordination.readNamespacedLease({ name: 'helmflow-native', namespace: 'kube-node-lease' });
        return lease.metadata?.resourceVersion !== first.metadata?.resourceVersion || undefined;
      },
      { timeoutMs: 30_000 },
    );
  });

  it('enforces the pod ServiceAccount RBAC: Forbidden without a binding, allowed once a RoleBinding grants it', async () => {
    const ns = await freshNamespace('rbac');
    const { core, rbac } = clients();
    await core.createNamespacedServiceAccount({ namespace: ns, body: { metadata: { name: 'reader' } } });
    const job = (name: string) =>
      commandJob(name, ['kubectl', 'get', 'pods', '-n', ns], { serviceAccountName: 'reader' });
    await createHelmJob(ns, job('denied'));
    expect((await jobFinished(ns, 'denied')).type).toBe('Failed');
    const denied = kubectl(['logs', '-n', ns, 'job/denied']).stdout;
    expect(denied).toContain('Forbidden');
    expect(denied).toContain(`system:serviceaccount:${ns}:reader`);

    await rbac.createNamespacedRole({
      namespace: ns,
      body: {
        metadata: { name: 'pod-reader' },
        rules: [{ apiGroups: [''], resources: ['pods'], verbs: ['get', 'list'] }],
      },
    });
    await rbac.createNamespacedRoleBinding({
      namespace: ns,
      body: {
        metadata: { name: 'reader-reads-pods' },
        roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'pod-reader' },
        subjects: [{ kind: 'ServiceAccount', name: 'reader', namespace: ns }],
      },
    });
    await createHelmJob(ns, job('allowed'));
    expect((await jobFinished(ns, 'allowed')).type).toBe('Complete');
    expect(kubectl(['logs', '-n', ns, 'job/allowed']).stdout).toMatch(/denied-\w+\s+0\/1\s+(Error|Completed)/);
  });

  it('materialises secret, configMap and emptyDir volumes under the working dir, and resolves env', async () => {
    const ns = await freshNamespace('volumes');
    const { core } = clients();
    await core.createNamespacedSecret({
      namespace: ns,
      body: { metadata: { name: 'values' }, stringData: { 'values.yaml': 'replicas: 3\n', token: 's3cr3t' } },
    });
    await core.createNamespacedConfigMap({
      namespace: ns,
      body: { metadata: { name: 'settings' }, data: { MODE: 'native' }, binaryData: { 'blob.bin': 'AAEC' } },
    });
    const script = 'cat values/values.yaml; echo "mode=$MODE token=$TOKEN pod=$POD"; wc -c < chart/blob.bin; pwd';
    await createHelmJob(ns, {
      metadata: { name: 'reader' },
      spec: {
        backoffLimit: 0,
        template: {
          spec: {
            restartPolicy: 'Never',
            volumes: [
              { name: 'values', secret: { secretName: 'values' } },
              { name: 'chart', configMap: { name: 'settings' } },
              { name: 'scratch', emptyDir: {} },
            ],
            containers: [
              {
                name: 'main',
                image: 'native',
                workingDir: '/home/helm',
                command: ['sh', '-c', script],
                envFrom: [{ configMapRef: { name: 'settings' } }],
                env: [
                  { name: 'TOKEN', valueFrom: { secretKeyRef: { name: 'values', key: 'token' } } },
                  { name: 'POD', valueFrom: { fieldRef: { fieldPath: 'metadata.namespace' } } },
                ],
                volumeMounts: [
                  { name: 'values', mountPath: '/home/helm/values' },
                  { name: 'chart', mountPath: '/home/helm/chart' },
                  { name: 'scratch', mountPath: '/tmp/scratch' },
                ],
              },
            ],
          },
        },
      },
    });
    expect((await jobFinished(ns, 'reader')).type).toBe('Complete');
    const out = kubectl(['logs', '-n', ns, 'job/reader']).stdout.split('\n');
    expect(out[0]).toBe('replicas: 3');
    expect(out[1]).toBe(`mode=native token=s3cr3t pod=${ns}`);
    expect(out[2]?.trim()).toBe('3');
    expect(out[3]).toMatch(/\/containers\/main\/home\/helm$/);
  });

  it('serves tailLines and follow on the logs endpoint', async () => {
    const ns = await freshNamespace('logs');
    await createHelmJob(ns, commandJob('counter', ['sh', '-c', 'for i in 1 2 3 4 5; do echo line $i; done']));
    await jobFinished(ns, 'counter');
    expect(kubectl(['logs', '-n', ns, 'job/counter', '--tail=2']).stdout).toBe('line 4\nline 5\n');
    expect(kubectl(['logs', '-n', ns, 'job/counter', '--follow']).stdout).toBe(
      'line 1\nline 2\nline 3\nline 4\nline 5\n',
    );
  });

  it('keeps a pod whose binary is missing Pending with a clear Event, and runs it once the binary appears', async () => {
    const ns = await freshNamespace('missing');
    const tool = `helmflow-missing-${Date.now()}`;
    const { core } = clients();
    await createHelmJob(ns, commandJob('needs-tool', [tool]));
    const event = await waitFor('a BinaryNotFound event', async () => {
      const events = await core.listNamespacedEvent({ namespace: ns });
      return events.items.find((e) => e.reason === 'BinaryNotFound');
    });
    expect(event.type).toBe('Warning');
    expect(event.message).toContain(tool);
    expect(event.message).toContain('not found');
    const [pending] = await jobPods(ns, 'needs-tool');
    const name = pending?.metadata?.name ?? '';
    expect(pending?.status?.phase).toBe('Pending');
    expect(pending?.status?.containerStatuses?.[0]?.state?.waiting?.reason).toBe('BinaryNotFound');

    const binary = path.join(testLayout().nodeBinDir, tool);
    mkdirSync(path.dirname(binary), { recursive: true });
    writeFileSync(binary, '#!/bin/sh\necho the tool ran\n', { mode: 0o755 });
    try {
      await waitFor(
        'the pod to run once its binary exists',
        async () => (await core.readNamespacedPod({ name, namespace: ns })).status?.phase === 'Succeeded',
        { timeoutMs: 30_000 },
      );
      expect(kubectl(['logs', '-n', ns, 'job/needs-tool']).stdout).toBe('the tool ran\n');
    } finally {
      rmSync(binary, { force: true });
    }
  });
});

// An unchanged pod sends no event, not even when the watch restarts: a binding or deletion the apiserver did not
// answer is only ever tried again if the native node itself goes back to it.
describe('the native node tries again what the apiserver did not answer', () => {
  const webhooks: FailingWebhook[] = [];
  afterEach(async () => {
    await Promise.all(webhooks.splice(0).map((w) => w.close()));
  });

  it('binds a pod whose binding failed once the apiserver takes it', async () => {
    const ns = await freshNamespace('bind-again');
    const webhook = await startFailingWebhook(ns);
    webhooks.push(webhook);
    await createHelmJob(ns, commandJob('bound-late', ['sh', '-c', 'echo ran']));
    await waitFor('the binding to fail twice', () => webhook.calls('CREATE pods/binding') >= 2, { timeoutMs: 30_000 });
    const [pending] = await jobPods(ns, 'bound-late');
    expect(pending?.spec?.nodeName ?? '').toBe('');

    webhook.allow();
    expect(await jobFinished(ns, 'bound-late', 30_000)).toEqual(expect.objectContaining({ type: 'Complete' }));
    expect(kubectl(['logs', '-n', ns, 'job/bound-late']).stdout).toBe('ran\n');
  });

  it("lets a deleted pod go once the apiserver takes its deletion's last step", async () => {
    const ns = await freshNamespace('delete-again');
    const { core } = clients();
    await createHelmJob(ns, commandJob('sleeper', ['sleep', '304']));
    const name = await runningPodOf(ns, 'sleeper', 'sleep 304');
    const webhook = await startFailingWebhook(ns);
    webhooks.push(webhook);
    await core.deleteNamespacedPod({ name, namespace: ns, gracePeriodSeconds: 5 });
    await waitFor('the last step of the deletion to fail twice', () => webhook.calls('DELETE pods') >= 2, {
      timeoutMs: 30_000,
    });
    const terminating = await core.readNamespacedPod({ name, namespace: ns });
    expect(terminating.metadata?.deletionTimestamp).toBeDefined();
    expect(processesUnder(testLayout().podsDir).some((p) => p.cmdline.includes('sleep 304'))).toBe(false);

    webhook.allow();
    await podGone(ns, name);
  });
});

describe('the native node runs nothing but helm Job pods (issue 8, point 9)', () => {
  it("leaves a chart's pods unbound and unrun, each with one Warning Event, while helm Jobs run", async () => {
    const ns = await freshNamespace('not-helm');
    const { core, batch } = clients();
    const markers = mkdtempSync(path.join(tmpdir(), 'helmflow-not-helm-'));
    const writes = (what: string) => ['sh', '-c', `touch ${path.join(markers, what)}`];
    const plainPod = (name: string, nodeName?: string) => ({
      metadata: { name },
      spec: {
        restartPolicy: 'Never',
        ...(nodeName === undefined ? {} : { nodeName }),
        containers: [{ name: 'main', image: 'native', command: writes(name) }],
      },
    });
    try {
      // A workload as a chart's Deployment would make it, a chart's own Job, and a pod naming the node itself.
      await core.createNamespacedPod({ namespace: ns, body: plainPod('workload') });
      await batch.createNamespacedJob({ namespace: ns, body: commandJob('chart-job', writes('chart-job')) });
      await core.createNamespacedPod({ namespace: ns, body: plainPod('pinned', 'helmflow-native') });
      const chartJobPod = await waitFor('the chart Job to have a pod', async () => {
        const [pod] = await jobPods(ns, 'chart-job');
        return pod?.metadata?.name;
      });
      const refused = ['workload', chartJobPod, 'pinned'];
      const warnings = async (name: string) =>
        (await core.listNamespacedEvent({ namespace: ns })).items.filter(
          (e) => e.involvedObject.name === name && e.reason === 'FailedScheduling',
        );
      for (const name of refused) {
        await waitFor(`a FailedScheduling event on ${name}`, async () => (await warnings(name)).length > 0);
      }
      // Every change to a pod makes the node look at it again; none says it twice.
      for (const round of [1, 2, 3]) {
        for (const name of refused) kubectl(['label', 'pod', '-n', ns, name, `round=${String(round)}`, '--overwrite']);
      }
      // A helm Job created after all that runs: the node has seen every change above by the time it completes.
      await createHelmJob(ns, commandJob('helm-runs', ['sh', '-c', `touch ${path.join(markers, 'helm-runs')}`]));
      expect((await jobFinished(ns, 'helm-runs')).type).toBe('Complete');

      for (const name of refused) {
        const events = await warnings(name);
        expect(events).toHaveLength(1);
        expect(events[0]?.type).toBe('Warning');
        expect(events[0]?.count).toBe(1);
        expect(events[0]?.message).toContain("runs only helmflow's helm Job pods");
        const pod = await core.readNamespacedPod({ name, namespace: ns });
        expect(pod.status?.phase).toBe('Pending');
        expect(pod.status?.containerStatuses ?? []).toEqual([]);
      }
      for (const name of ['workload', chartJobPod]) {
        expect((await core.readNamespacedPod({ name, namespace: ns })).spec?.nodeName ?? '').toBe('');
      }
      expect((await warnings('workload'))[0]?.message).toContain('not controlled by a Job');
      expect((await warnings(chartJobPod))[0]?.message).toContain('is not managed by helmflow');
      // Only the helm Job's command ran on this machine.
      expect(readdirSync(markers)).toEqual(['helm-runs']);
    } finally {
      rmSync(markers, { recursive: true, force: true });
    }
  });
});
