import { waitFor } from '../../src/lib/wait.js';
import { isNotFound } from '../../src/kube/client.js';
import { PREFLIGHT_CONTAINER } from '../../src/build/pod.js';
import { buildChart, releaseValues } from './support/charts.js';
import { useHelmflow } from './support/helmflow.js';
import {
  apply,
  chartFailed,
  chartInstalled,
  helm,
  helmChart,
  readHelmChart,
  releaseRevisions,
} from './support/helmcharts.js';
import { clients, freshNamespace, kubectl, eventsOf } from './support/kube.js';

useHelmflow();

const chart = buildChart({ name: 'lifecycle', values: { greeting: 'from the chart' } });

describe('a HelmChart kept installed by its workflow (real helm on the embedded stack)', () => {
  it('installs, upgrades on a values change, and uninstalls on delete: its ServiceAccount, ClusterRoleBinding, Secret and ConfigMap existed, then are gone', async () => {
    const ns = await freshNamespace('lifecycle');
    const target = `${ns}-apps`;
    apply(
      helmChart(ns, 'hello', {
        chartContent: chart.chartContent,
        targetNamespace: target,
        createNamespace: true,
        valuesContent: 'greeting: first\n',
        set: { replicas: 2 },
      }),
    );
    const installed = await chartInstalled(ns, 'hello');
    expect(installed.metadata.finalizers).toContain('helm.k3sm.io/uninstall');
    expect(installed.status?.jobName).toBe('helm-install-hello');
    expect(installed.status?.conditions?.find((c) => c.type === 'JobCreated')?.status).toBe('True');
    expect(await releaseValues(target, 'hello')).toEqual(expect.objectContaining({ greeting: 'first', replicas: 2 }));
    expect(releaseRevisions(target, 'hello').map((r) => r.status)).toEqual(['deployed']);
    const table = kubectl(['get', 'helmcharts.helm.k3sm.io', '-n', ns]).stdout;
    expect(table).toMatch(/hello\s.*helm-install-hello/);
    // The install's identity and inputs exist under exactly these names, so "gone" below means removed, not
    // never made under another name.
    const { core, rbac, batch } = clients();
    const account = await core.readNamespacedServiceAccount({ name: 'helm-hello', namespace: ns });
    expect(account.metadata?.ownerReferences?.map((o) => o.uid)).toEqual([installed.metadata.uid]);
    const binding = await rbac.readClusterRoleBinding({ name: `helm-${ns}-hello` });
    expect(binding.roleRef.name).toBe('cluster-admin');
    expect(binding.subjects).toEqual([
      expect.objectContaining({ kind: 'ServiceAccount', name: 'helm-hello', namespace: ns }),
    ]);
    expect((await core.readNamespacedSecret({ name: 'chart-values-hello', namespace: ns })).data).toBeDefined();
    expect((await core.readNamespacedConfigMap({ name: 'chart-content-hello', namespace: ns })).metadata?.name).toBe(
      'chart-content-hello',
    );

    // A values change reruns the install: helm history shows the new revision.
    apply(
      helmChart(ns, 'hello', {
        chartContent: chart.chartContent,
        targetNamespace: target,
        createNamespace: true,
        valuesContent: 'greeting: second\n',
        set: { replicas: 2 },
      }),
    );
    await waitFor('revision 2', () => releaseRevisions(target, 'hello').length === 2 || undefined, {
      timeoutMs: 120_000,
    });
    await chartInstalled(ns, 'hello');
    expect(await releaseValues(target, 'hello')).toEqual(expect.objectContaining({ greeting: 'second' }));
    expect(releaseRevisions(target, 'hello').at(-1)?.status).toBe('deployed');

    // Delete: helm uninstall in helm-delete-hello, identity removed, finalizer released.
    expect(kubectl(['delete', 'helmcharts.helm.k3sm.io', 'hello', '-n', ns, '--wait=false']).status).toBe(0);
    await waitFor('the HelmChart to be gone', async () => (await readHelmChart(ns, 'hello')) === undefined, {
      timeoutMs: 120_000,
    });
    expect(helm(['status', 'hello', '-n', target]).status).not.toBe(0);
    const gone = async (read: () => Promise<unknown>) =>
      read().then(
        () => false,
        (err: unknown) => isNotFound(err),
      );
    expect(await gone(() => core.readNamespacedServiceAccount({ name: 'helm-hello', namespace: ns }))).toBe(true);
    expect(await gone(() => rbac.readClusterRoleBinding({ name: `helm-${ns}-hello` }))).toBe(true);
    expect(await gone(() => core.readNamespacedSecret({ name: 'chart-values-hello', namespace: ns }))).toBe(true);
    expect(await gone(() => core.readNamespacedConfigMap({ name: 'chart-content-hello', namespace: ns }))).toBe(true);
    const deleteJob = await batch.readNamespacedJob({ name: 'helm-delete-hello', namespace: ns });
    expect(deleteJob.spec?.ttlSecondsAfterFinished).toBe(600);
    expect(deleteJob.status?.succeeded).toBe(1);
  });

  it('under failurePolicy abort keeps the failed Job and its logs, with Failed and a HelmChartInstallFailed event', async () => {
    const ns = await freshNamespace('abort');
    apply(
      helmChart(ns, 'broken', {
        chartContent: chart.chartContent,
        failurePolicy: 'abort',
        backOffLimit: 0,
        set: { fail: 'broken on purpose' },
      }),
    );
    const failed = await chartFailed(ns, 'broken');
    expect(failed.status?.conditions?.find((c) => c.type === 'Failed')?.reason).toBe('BackoffLimitExceeded');
    const [event] = await waitFor('HelmChartInstallFailed', async () => {
      const found = await eventsOf(ns, 'broken', 'HelmChartInstallFailed');
      return found.length > 0 ? found : undefined;
    });
    expect(event?.type).toBe('Warning');
    expect(event?.message).toContain('broken on purpose');
    // The Job stays, and so do its logs.
    const job = await clients().batch.readNamespacedJob({ name: 'helm-install-broken', namespace: ns });
    expect(job.status?.failed).toBeGreaterThan(0);
    // The render fails in pre-flight, the Job's init container. Its log is read by name: `--all-containers` stops
    // at the first container that never ran (crds, helm), and kubectl visits them in no fixed order.
    expect(kubectl(['logs', '-n', ns, 'job/helm-install-broken', '-c', PREFLIGHT_CONTAINER]).stdout).toContain(
      'broken on purpose',
    );
  });

  it('under failurePolicy reinstall deletes the failed Job and tries again, then converges once fixed', async () => {
    const ns = await freshNamespace('reinstall');
    const spec = { chartContent: chart.chartContent, backOffLimit: 0, set: { fail: 'not yet' } };
    apply(helmChart(ns, 'flaky', spec));
    await waitFor(
      'two failed attempts',
      async () => ((await eventsOf(ns, 'flaky', 'HelmChartInstallFailed')).length >= 2 ? true : undefined),
      { timeoutMs: 120_000 },
    );
    apply(helmChart(ns, 'flaky', { chartContent: chart.chartContent, backOffLimit: 0 }));
    await chartInstalled(ns, 'flaky');
    expect(await releaseValues(ns, 'flaky')).toEqual(expect.objectContaining({ greeting: 'from the chart' }));
  });
});
