import type { CoreV1Event } from '@kubernetes/client-node';
import { waitFor } from '../../src/lib/wait.js';
import { isNotFound } from '../../src/kube/client.js';
import { buildChart } from './support/charts.js';
import { useHelmflow } from './support/helmflow.js';
import { apply, chartFailed, chartInstalled, helm, helmChart, readHelmChart } from './support/helmcharts.js';
import { clients, freshNamespace, kubectl } from './support/kube.js';
import { chartWorkflowStatus } from './support/observe.js';

const helmflow = useHelmflow();

const chart = buildChart({ name: 'plain' });

async function events(namespace: string, reason: string): Promise<CoreV1Event[]> {
  const list = await clients().core.listNamespacedEvent({ namespace });
  return list.items.filter((e) => e.reason === reason);
}

async function gone(what: string, read: () => Promise<unknown>, timeoutMs: number): Promise<number> {
  const started = Date.now();
  await waitFor(
    `${what} to be gone`,
    async () => {
      try {
        return (await read()) === undefined || undefined;
      } catch (err) {
        if (isNotFound(err)) return true;
        throw err;
      }
    },
    { timeoutMs, intervalMs: 300 },
  );
  return Date.now() - started;
}

/**
 * A quota of zero Jobs. The embedded stack runs no resourcequota controller, so the quota's usage is written by
 * hand: the apiserver's quota admission then refuses every Job in the namespace, as a full quota would.
 */
function noJobsQuota(namespace: string): void {
  const quota = { apiVersion: 'v1', kind: 'ResourceQuota', metadata: { name: 'no-jobs', namespace } };
  expect(
    kubectl(['apply', '-f', '-'], JSON.stringify({ ...quota, spec: { hard: { 'count/jobs.batch': '0' } } })).status,
  ).toBe(0);
  const status = { status: { hard: { 'count/jobs.batch': '0' }, used: { 'count/jobs.batch': '0' } } };
  const patched = kubectl([
    'patch',
    'resourcequota',
    'no-jobs',
    '-n',
    namespace,
    '--subresource=status',
    '--type=merge',
    '-p',
    JSON.stringify(status),
  ]);
  expect(patched.stderr).toBe('');
}

describe('an install step the apiserver refuses for good (a quota forbidding Jobs)', () => {
  it('shows Failed=True QuotaExceeded and a Warning naming the Job within seconds; its delete still ends', async () => {
    // A chart installed first, elsewhere: helmflow's worker is up, so the figure below is the refusal's alone.
    const warm = await freshNamespace('warm');
    apply(helmChart(warm, 'warm', { chartContent: chart.chartContent }));
    await chartInstalled(warm, 'warm');
    const ns = await freshNamespace('quota');
    noJobsQuota(ns);
    const started = Date.now();
    apply(helmChart(ns, 'quota', { chartContent: chart.chartContent, failurePolicy: 'abort' }));
    const failed = await chartFailed(ns, 'quota', 30_000).catch(async (err: unknown) => {
      // What the chart and its workflow said instead, so a failure here explains itself.
      const seen = {
        chart: (await readHelmChart(ns, 'quota'))?.status,
        workflow: await chartWorkflowStatus(helmflow.settings, ns, 'quota'),
      };
      throw new Error(`${(err as Error).message}; seen: ${JSON.stringify(seen)}`);
    });
    const seconds = (Date.now() - started) / 1000;
    const condition = failed.status?.conditions?.find((c) => c.type === 'Failed');
    expect(condition).toMatchObject({ status: 'True', reason: 'QuotaExceeded' });
    expect(condition?.message).toContain('jobs.batch "helm-install-quota" is forbidden: exceeded quota: no-jobs');
    const warning = await waitFor('the HelmChartInstallFailed Warning', async () => {
      const found = await events(ns, 'HelmChartInstallFailed');
      return found.find((e) => e.involvedObject.uid === failed.metadata.uid);
    });
    expect(warning.type).toBe('Warning');
    expect(warning.message).toContain('QuotaExceeded: ');
    expect(warning.message).toContain('helm-install-quota');
    expect(seconds).toBeLessThan(20);
    process.stderr.write(`quota refusal to Failed=True: ${seconds.toFixed(1)} s\n`);

    // The uninstall Job is refused by the same quota: the delete skips it and ends, naming the release left.
    expect(kubectl(['delete', 'helmcharts.helm.k3sm.io', 'quota', '-n', ns, '--wait=false']).status).toBe(0);
    await gone('the HelmChart', () => readHelmChart(ns, 'quota'), 60_000);
    const left = await events(ns, 'HelmChartUninstallFailed');
    expect(left.map((e) => e.message).join('\n')).toContain('release quota, not uninstalled (QuotaExceeded');
  });
});

describe('deleting the namespace of an installed chart', () => {
  it('ends: the HelmChart and its namespace are gone within a minute', async () => {
    const ns = await freshNamespace('doomed');
    apply(helmChart(ns, 'doomed', { chartContent: chart.chartContent }));
    await chartInstalled(ns, 'doomed');
    expect(kubectl(['delete', 'namespace', ns, '--wait=false']).status).toBe(0);
    const ms = await gone('the namespace', () => clients().core.readNamespace({ name: ns }), 60_000);
    expect(await readHelmChart(ns, 'doomed')).toBeUndefined();
    process.stderr.write(`namespace with an installed chart deleted in ${(ms / 1000).toFixed(1)} s\n`);
  });
});

describe('deleting an unmanaged chart (helm.k3sm.io/unmanaged: "true")', () => {
  it('releases the finalizer without helm uninstall: the release stays, no helm-delete Job ran', async () => {
    const ns = await freshNamespace('unmanaged');
    apply(helmChart(ns, 'handed', { chartContent: chart.chartContent }));
    await chartInstalled(ns, 'handed');
    expect(
      kubectl(['annotate', 'helmcharts.helm.k3sm.io', 'handed', '-n', ns, 'helm.k3sm.io/unmanaged=true']).status,
    ).toBe(0);
    expect(kubectl(['delete', 'helmcharts.helm.k3sm.io', 'handed', '-n', ns, '--wait=false']).status).toBe(0);
    await gone('the HelmChart', () => readHelmChart(ns, 'handed'), 60_000);
    expect(helm(['status', 'handed', '-n', ns]).status).toBe(0);
    const deleteJob = clients().batch.readNamespacedJob({ name: 'helm-delete-handed', namespace: ns });
    await expect(deleteJob).rejects.toMatchObject({ code: 404 });
    const skipped = await events(ns, 'HelmChartUninstallSkipped');
    expect(skipped).toHaveLength(1);
  });
});
