import { waitFor } from '../../src/lib/wait.js';
import { buildChart } from './support/charts.js';
import { installCrds, removeCrds } from './support/crds.js';
import { startHelmflow, type RunningHelmflow } from './support/helmflow.js';
import { apply, chartInstalled, readHelmChart } from './support/helmcharts.js';
import { clients, freshNamespace, kubectl } from './support/kube.js';
import { chartWorkflowStatus, holdsFor, watchJobs, type JobLog } from './support/observe.js';
import { installPermissiveCrds } from './support/permissive-crds.js';

/**
 * How long a refused chart is watched for a Job: four times the test settings' longest backoff (4 s), so a
 * workflow that retried the refusal and then went on to create a Job would be seen. The second test checks that
 * a Job does appear within this window once the refusal's cause is gone.
 */
const NO_JOB_WINDOW_MS = 16_000;

/** Holds while the watch has seen no Job in the namespace (uidsOf throws if the watch ended: no false pass). */
async function noJobFor(jobs: JobLog, what: string): Promise<void> {
  await holdsFor(`no Job for ${what}`, () => jobs.added.length === 0 && jobs.uidsOf('').length === 0, NO_JOB_WINDOW_MS);
}

function cattleChart(namespace: string, name: string, spec: Record<string, unknown>) {
  return { apiVersion: 'helm.cattle.io/v1', kind: 'HelmChart', metadata: { name, namespace }, spec };
}

async function cattleChartStatus(namespace: string, name: string) {
  const out = kubectl(['get', 'helmcharts.helm.cattle.io', name, '-n', namespace, '-o', 'json']);
  if (out.status !== 0) return undefined;
  return JSON.parse(out.stdout) as {
    status?: { conditions?: { type: string; status: string; reason?: string; message?: string }[] };
  };
}

let helmflow: RunningHelmflow | undefined;
afterAll(async () => {
  await helmflow?.stop();
});

describe('refusals the apiserver cannot make are made by the controller, with a reason and no Job', () => {
  it('refuses an http:// repo that slipped past k3s-style CRDs with Failed/InsecureRepo', async () => {
    await installPermissiveCrds();
    // helmflow re-applies its own (strict) CRDs when it leads, so it starts only after the chart exists.
    const ns = await freshNamespace('insecure');
    const jobs = await watchJobs(ns);
    apply(cattleChart(ns, 'plain', { repo: 'http://charts.example.invalid', chart: 'podinfo' }));
    const running = startHelmflow({ group: 'helm.cattle.io' });
    helmflow = running;
    const failed = await waitFor('Failed=True', async () => {
      const status = await cattleChartStatus(ns, 'plain');
      return status?.status?.conditions?.find((c) => c.type === 'Failed' && c.status === 'True');
    });
    expect(failed.reason).toBe('InsecureRepo');
    expect(failed.message).toContain('https://');
    // The workflow itself has taken the refusal in (not only a status someone wrote), and keeps to it.
    const status = await waitFor('the workflow to hold the refusal', async () => {
      const s = await chartWorkflowStatus(running.settings, ns, 'plain');
      return s.phase === 'Failed' ? s : undefined;
    });
    expect(status.lastFailure?.reason).toBe('InsecureRepo');
    await noJobFor(jobs, 'the insecure chart');
    jobs.stop();
    // Leave no second group behind: delete the chart while helmflow runs (it releases the finalizer), then the CRDs.
    expect(kubectl(['delete', 'helmcharts.helm.cattle.io', 'plain', '-n', ns, '--wait=false']).status).toBe(0);
    await waitFor(
      'the chart to be gone',
      () => kubectl(['get', 'helmcharts.helm.cattle.io', 'plain', '-n', ns]).status !== 0,
      {
        timeoutMs: 120_000,
      },
    );
    // The chart never had an identity (refused before any install), yet its uninstall ran rather than timing out.
    const deleteJob = await clients().batch.readNamespacedJob({ name: 'helm-delete-plain', namespace: ns });
    expect(deleteJob.status?.succeeded).toBe(1);
    const events = await clients().core.listNamespacedEvent({ namespace: ns });
    expect(events.items.filter((e) => e.reason === 'HelmChartUninstallFailed')).toEqual([]);
    await helmflow.stop();
    helmflow = undefined;
    await removeCrds('helm.cattle.io');
  });

  it('refuses a chart whose values Secret is missing (ValuesSecretNotFound), then installs once it exists', async () => {
    await installCrds('helm.k3sm.io');
    helmflow = startHelmflow();
    const ns = await freshNamespace('nosecret');
    const jobs = await watchJobs(ns);
    const chart = buildChart({ name: 'waits' });
    apply({
      apiVersion: 'helm.k3sm.io/v1',
      kind: 'HelmChart',
      metadata: { name: 'waits', namespace: ns },
      spec: { chartContent: chart.chartContent, valuesSecrets: [{ name: 'later', keys: ['values.yaml'] }] },
    });
    const failed = await waitFor('Failed=True', async () => {
      const current = await readHelmChart(ns, 'waits');
      return current?.status?.conditions?.find((c) => c.type === 'Failed' && c.status === 'True');
    });
    expect(failed.reason).toBe('ValuesSecretNotFound');
    expect(failed.message).toContain('later');
    await noJobFor(jobs, 'the chart without its values Secret');
    const created = Date.now();
    await clients().core.createNamespacedSecret({
      namespace: ns,
      body: { metadata: { name: 'later' }, stringData: { 'values.yaml': 'arrived: true\n' } },
    });
    await chartInstalled(ns, 'waits');
    // The window above was long enough: with its cause gone, the Job came well within it.
    const job = jobs.added.find((a) => a.name === 'helm-install-waits');
    expect(job).toBeDefined();
    expect((job?.seenAt ?? Infinity) - created).toBeLessThan(NO_JOB_WINDOW_MS);
    jobs.stop();
  });
});
