import { CoordinationV1Api } from '@kubernetes/client-node';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { readPins } from '../../src/config/pins.js';
import { processesUnder } from '../../src/devstack/process.js';
import { waitFor } from '../../src/devstack/wait.js';
import { clients, freshNamespace, kubeConfig, kubectl } from './support/kube.js';
import { commandJob, jobFinished, jobPods } from './support/jobs.js';
import { testLayout } from './support/stack.js';

describe('the native node runs Jobs as host processes', () => {
  it('runs `helm version` to completion, and kubectl logs job/<name> prints the pinned version', async () => {
    const ns = await freshNamespace('helm-version');
    await clients().batch.createNamespacedJob({ namespace: ns, body: commandJob('helm-version', ['helm', 'version']) });
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
    await clients().batch.createNamespacedJob({
      namespace: ns,
      body: commandJob('fails', ['sh', '-c', 'echo attempt; exit 1'], { backoffLimit: 1 }),
    });
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
    await clients().batch.createNamespacedJob({
      namespace: ns,
      body: commandJob('flaky', ['sh', '-c', script], { backoffLimit: 3, restartPolicy: 'OnFailure' }),
    });
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
    await clients().batch.createNamespacedJob({
      namespace: ns,
      body: commandJob('sleeper', ['sh', '-c', `exec sleep 300 # ${marker}`], { activeDeadlineSeconds: 3 }),
    });
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
    await core.createNamespacedPod({
      namespace: ns,
      body: {
        metadata: { name: 'sleeper' },
        spec: { restartPolicy: 'Never', containers: [{ name: 'main', image: 'native', command: ['sleep', '301'] }] },
      },
    });
    await waitFor('the pod to run', async () => {
      const pod = await core.readNamespacedPod({ name: 'sleeper', namespace: ns });
      return pod.status?.phase === 'Running';
    });
    expect(processesUnder(testLayout().podsDir).some((p) => p.cmdline.includes('sleep 301'))).toBe(true);
    await core.deleteNamespacedPod({ name: 'sleeper', namespace: ns, gracePeriodSeconds: 5 });
    await waitFor('the pod object to be gone', async () => {
      const pods = await core.listNamespacedPod({ namespace: ns });
      return pods.items.length === 0;
    });
    expect(processesUnder(testLayout().podsDir).some((p) => p.cmdline.includes('sleep 301'))).toBe(false);
  });

  it('KILLs a process that ignores TERM once the grace period is over', async () => {
    const ns = await freshNamespace('stubborn');
    const { core } = clients();
    await core.createNamespacedPod({
      namespace: ns,
      body: {
        metadata: { name: 'ignores-term' },
        spec: {
          restartPolicy: 'Never',
          terminationGracePeriodSeconds: 2,
          containers: [
            { name: 'main', image: 'native', command: ['sh', '-c', 'trap "" TERM; sleep 302 & wait; sleep 302'] },
          ],
        },
      },
    });
    await waitFor('the pod to run', async () => {
      const pod = await core.readNamespacedPod({ name: 'ignores-term', namespace: ns });
      return (
        pod.status?.phase === 'Running' &&
        processesUnder(testLayout().podsDir).some((p) => p.cmdline.includes('sleep 302'))
      );
    });
    const deleted = Date.now();
    await core.deleteNamespacedPod({ name: 'ignores-term', namespace: ns });
    await waitFor(
      'the pod object to be gone',
      async () => (await core.listNamespacedPod({ namespace: ns })).items.length === 0,
      {
        timeoutMs: 30_000,
      },
    );
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
    const { core, batch, rbac } = clients();
    await core.createNamespacedServiceAccount({ namespace: ns, body: { metadata: { name: 'reader' } } });
    const job = (name: string) =>
      commandJob(name, ['kubectl', 'get', 'pods', '-n', ns], { serviceAccountName: 'reader' });
    await batch.createNamespacedJob({ namespace: ns, body: job('denied') });
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
    await batch.createNamespacedJob({ namespace: ns, body: job('allowed') });
    expect((await jobFinished(ns, 'allowed')).type).toBe('Complete');
    expect(kubectl(['logs', '-n', ns, 'job/allowed']).stdout).toMatch(/denied-\w+\s+0\/1\s+(Error|Completed)/);
  });

  it('materialises secret, configMap and emptyDir volumes under the working dir, and resolves env', async () => {
    const ns = await freshNamespace('volumes');
    const { core, batch } = clients();
    await core.createNamespacedSecret({
      namespace: ns,
      body: { metadata: { name: 'values' }, stringData: { 'values.yaml': 'replicas: 3\n', token: 's3cr3t' } },
    });
    await core.createNamespacedConfigMap({
      namespace: ns,
      body: { metadata: { name: 'settings' }, data: { MODE: 'native' }, binaryData: { 'blob.bin': 'AAEC' } },
    });
    const script = 'cat values/values.yaml; echo "mode=$MODE token=$TOKEN pod=$POD"; wc -c < chart/blob.bin; pwd';
    await batch.createNamespacedJob({
      namespace: ns,
      body: {
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
    await clients().batch.createNamespacedJob({
      namespace: ns,
      body: commandJob('counter', ['sh', '-c', 'for i in 1 2 3 4 5; do echo line $i; done']),
    });
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
    await core.createNamespacedPod({
      namespace: ns,
      body: {
        metadata: { name: 'needs-tool' },
        spec: { restartPolicy: 'Never', containers: [{ name: 'main', image: 'native', command: [tool] }] },
      },
    });
    const event = await waitFor('a BinaryNotFound event', async () => {
      const events = await core.listNamespacedEvent({ namespace: ns });
      return events.items.find((e) => e.reason === 'BinaryNotFound');
    });
    expect(event.type).toBe('Warning');
    expect(event.message).toContain(tool);
    expect(event.message).toContain('not found');
    const pending = await core.readNamespacedPod({ name: 'needs-tool', namespace: ns });
    expect(pending.status?.phase).toBe('Pending');
    expect(pending.status?.containerStatuses?.[0]?.state?.waiting?.reason).toBe('BinaryNotFound');

    const binary = path.join(testLayout().nodeBinDir, tool);
    mkdirSync(path.dirname(binary), { recursive: true });
    writeFileSync(binary, '#!/bin/sh\necho the tool ran\n', { mode: 0o755 });
    try {
      await waitFor(
        'the pod to run once its binary exists',
        async () => (await core.readNamespacedPod({ name: 'needs-tool', namespace: ns })).status?.phase === 'Succeeded',
        { timeoutMs: 30_000 },
      );
      expect(kubectl(['logs', '-n', ns, 'needs-tool']).stdout).toBe('the tool ran\n');
    } finally {
      rmSync(binary, { force: true });
    }
  });
});
