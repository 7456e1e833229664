// The controller on the embedded stack with real helm (issue 5): the auto-deploy directory, HelmChartConfig
// overlays, values Secrets, and a HelmChart deleted while no controller runs.
import { chmodSync, mkdtempSync, rmSync, unlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { stringify } from 'yaml';
import { UNMANAGED_ANNOTATION, type HelmChart } from '../../src/api/index.js';
import { MANIFEST_FIELD_MANAGER } from '../../src/controller/manifests/index.js';
import { waitFor } from '../../src/lib/wait.js';
import { PREFLIGHT_CONTAINER } from '../../src/build/pod.js';
import { buildChart, releaseValues } from './support/charts.js';
import { installCrds } from './support/crds.js';
import { startController, startHelmflow, type RunningHelmflow } from './support/helmflow.js';
import { apply, chartInstalled, helm, helmChart, readHelmChart, releaseRevisions } from './support/helmcharts.js';
import { clients, freshNamespace, kubectl, eventsOf } from './support/kube.js';
import { chartWorkflowStatus, holdsFor, watchJobs } from './support/observe.js';

/**
 * How long a HelmChart deleted while no controller runs is watched: a started controller takes it up (leads,
 * lists, signals, and the workflow creates the delete Job) in a few seconds; this is several times that, and the
 * orphan test checks that its own controller did it within this window.
 */
const ORPHAN_WINDOW_MS = 30_000;

/** Three of the test settings' longest reinstall backoff (4 s): a reinstall would have made its second Job. */
const POLICY_WINDOW_MS = 12_000;

const chart = buildChart({ name: 'controlled', values: { greeting: 'from the chart', other: 'from the chart' } });
let helmflow: RunningHelmflow;
let manifestsDir: string;

beforeAll(async () => {
  await installCrds('helm.k3sm.io');
  // As /var/lib/k3sm/manifests would be: owned by root (the user running the tests is trusted too), mode 0755.
  manifestsDir = mkdtempSync(path.join(tmpdir(), 'hf-autodeploy-'));
  chmodSync(manifestsDir, 0o755);
  helmflow = startHelmflow({ manifestsDir });
});
afterAll(async () => {
  await helmflow.stop();
  rmSync(manifestsDir, { recursive: true, force: true });
});

function helmChartConfig(namespace: string, name: string, spec: Record<string, unknown>) {
  return { apiVersion: 'helm.k3sm.io/v1', kind: 'HelmChartConfig', metadata: { name, namespace }, spec };
}

function secret(namespace: string, name: string, stringData: Record<string, string>) {
  return { apiVersion: 'v1', kind: 'Secret', metadata: { name, namespace }, stringData };
}

/** Waits for helm history to reach `revision`, deployed, and for the chart to report that install as Installed. */
async function installedAtRevision(namespace: string, name: string, revision: number): Promise<HelmChart> {
  await waitFor(
    `release ${namespace}/${name} revision ${revision} deployed`,
    () => {
      const revisions = releaseRevisions(namespace, name);
      return revisions.length === revision && revisions.at(-1)?.status === 'deployed';
    },
    { timeoutMs: 120_000, intervalMs: 500 },
  );
  return chartInstalled(namespace, name);
}

describe('the controller (real helm on the embedded stack)', () => {
  it('installs a HelmChart dropped into the auto-deploy directory; removing the file deletes neither it nor its release', async () => {
    const ns = await freshNamespace('autodeploy');
    const file = path.join(manifestsDir, 'dropped.yaml');
    const dropped = helmChart(ns, 'dropped', {
      chartContent: chart.chartContent,
      valuesContent: 'greeting: from the auto-deploy directory\n',
    });
    writeFileSync(file, stringify(dropped), { mode: 0o644 });

    const installed = await chartInstalled(ns, 'dropped');
    // Applied by the directory's own identity (server-side apply), installed by the controller's workflow.
    const managers = (installed.metadata as { managedFields?: { manager?: string }[] }).managedFields?.map(
      (f) => f.manager,
    );
    expect(managers).toContain(MANIFEST_FIELD_MANAGER);
    expect(installed.status?.jobName).toBe('helm-install-dropped');
    expect(await releaseValues(ns, 'dropped')).toEqual(
      expect.objectContaining({ greeting: 'from the auto-deploy directory' }),
    );

    unlinkSync(file);
    // A file dropped after the removal: once its object exists, a sweep has seen the directory without dropped.yaml.
    const barrier = helmChart(
      ns,
      'barrier',
      { chartContent: chart.chartContent },
      {
        annotations: { [UNMANAGED_ANNOTATION]: 'true' },
      },
    );
    writeFileSync(path.join(manifestsDir, 'barrier.yaml'), stringify(barrier), { mode: 0o644 });
    await waitFor('the file dropped after the removal to be applied', () => readHelmChart(ns, 'barrier'), {
      timeoutMs: 30_000,
    });
    const after = await readHelmChart(ns, 'dropped');
    expect(after?.metadata.uid).toBe(installed.metadata.uid);
    expect(after?.metadata.deletionTimestamp).toBeUndefined();
    expect(releaseRevisions(ns, 'dropped').map((r) => r.status)).toEqual(['deployed']);
    unlinkSync(path.join(manifestsDir, 'barrier.yaml'));
  });

  it('overlays a HelmChartConfig of the same name over valuesContent, and reruns the install when it changes', async () => {
    const ns = await freshNamespace('overlay');
    apply(helmChartConfig(ns, 'overlaid', { valuesContent: 'greeting: from the HelmChartConfig\n' }));
    apply(
      helmChart(ns, 'overlaid', {
        chartContent: chart.chartContent,
        valuesContent: 'greeting: from valuesContent\nother: from valuesContent\n',
      }),
    );
    // The HelmChartConfig may reach the controller just after the HelmChart: either way the overlay must win.
    const values = await waitFor(
      'the release to carry the HelmChartConfig overlay',
      async () => {
        const v = await releaseValues(ns, 'overlaid');
        return v?.greeting === 'from the HelmChartConfig' ? v : undefined;
      },
      { timeoutMs: 120_000, intervalMs: 500 },
    );
    expect(values.other).toBe('from valuesContent');
    const before = await chartInstalled(ns, 'overlaid');
    const revisions = releaseRevisions(ns, 'overlaid').length;

    apply(helmChartConfig(ns, 'overlaid', { valuesContent: 'greeting: changed in the HelmChartConfig\n' }));
    const after = await installedAtRevision(ns, 'overlaid', revisions + 1);
    expect(await releaseValues(ns, 'overlaid')).toEqual(
      expect.objectContaining({ greeting: 'changed in the HelmChartConfig', other: 'from valuesContent' }),
    );
    // The HelmChart itself did not change: the rerun came from the HelmChartConfig alone.
    expect(after.metadata.generation).toBe(before.metadata.generation);
    expect(after.status?.digest).not.toBe(before.status?.digest);
  });

  it("lets a HelmChartConfig's failurePolicy override the HelmChart's: abort keeps the failed Job instead of reinstalling", async () => {
    const ns = await freshNamespace('policy');
    const jobs = await watchJobs(ns);
    apply(helmChartConfig(ns, 'strict', { failurePolicy: 'abort' }));
    apply(
      helmChart(ns, 'strict', {
        chartContent: chart.chartContent,
        failurePolicy: 'reinstall',
        backOffLimit: 0,
        set: { fail: 'the HelmChartConfig says abort' },
      }),
    );
    // Under the HelmChart's reinstall the workflow would go Backoff → Installing forever; abort settles in Failed.
    const status = await waitFor(
      'the chart workflow to stop in Failed',
      async () => {
        const s = await chartWorkflowStatus(helmflow.settings, ns, 'strict');
        return s.phase === 'Failed' ? s : undefined;
      },
      { timeoutMs: 120_000, intervalMs: 500 },
    );
    expect(status.lastFailure?.reason).toBe('BackoffLimitExceeded');
    // reinstall passes through Failed too, then deletes the Job and makes a second one after a backoff (at most
    // 4 s in the test settings): abort must hold Failed, one Job and one attempt for several backoffs.
    await holdsFor(
      'the workflow to stay Failed on its first attempt, with one install Job',
      async () => {
        const s = await chartWorkflowStatus(helmflow.settings, ns, 'strict');
        return s.phase === 'Failed' && s.attempt === 1 && jobs.uidsOf('helm-install-strict').length === 1;
      },
      POLICY_WINDOW_MS,
      500,
    );
    jobs.stop();
    const chartNow = await readHelmChart(ns, 'strict');
    expect(chartNow?.status?.conditions?.find((c) => c.type === 'Failed')?.status).toBe('True');
    // abort leaves the failed Job and its logs in place (the render fails in pre-flight, its init container).
    const job = await clients().batch.readNamespacedJob({ name: 'helm-install-strict', namespace: ns });
    expect(job.status?.failed).toBeGreaterThan(0);
    expect(kubectl(['logs', '-n', ns, 'job/helm-install-strict', '-c', PREFLIGHT_CONTAINER]).stdout).toContain(
      'the HelmChartConfig says abort',
    );
    expect(await eventsOf(ns, 'strict', 'HelmChartInstallFailed')).toHaveLength(1);
    expect(status.attempt).toBe(1);
  });

  it('reruns the install when a values Secret changes, but not when the Secret is marked ignoreUpdates', async () => {
    const ns = await freshNamespace('secrets');
    apply(secret(ns, 'watched', { 'values.yaml': 'greeting: watched v1\n' }));
    apply(secret(ns, 'ignored', { 'ignored.yaml': 'other: ignored v1\n' }));
    apply(secret(ns, 'barrier-values', { 'values.yaml': 'greeting: barrier v1\n' }));
    apply(
      helmChart(ns, 'secretive', {
        chartContent: chart.chartContent,
        valuesSecrets: [
          { name: 'watched', keys: ['values.yaml'] },
          { name: 'ignored', keys: ['ignored.yaml'], ignoreUpdates: true },
        ],
      }),
    );
    apply(
      helmChart(ns, 'barrier', {
        chartContent: chart.chartContent,
        valuesSecrets: [{ name: 'barrier-values', keys: ['values.yaml'] }],
      }),
    );
    await chartInstalled(ns, 'secretive');
    await chartInstalled(ns, 'barrier');
    expect(await releaseValues(ns, 'secretive')).toEqual(
      expect.objectContaining({ greeting: 'watched v1', other: 'ignored v1' }),
    );
    const workflowBefore = await chartWorkflowStatus(helmflow.settings, ns, 'secretive');
    const jobBefore = await clients().batch.readNamespacedJob({ name: 'helm-install-secretive', namespace: ns });

    // The ignored Secret changes, then the barrier chart's Secret. The controller handles the Secret watch's
    // events in order, so once the barrier chart has reinstalled, the ignored change was long seen and dropped.
    apply(secret(ns, 'ignored', { 'ignored.yaml': 'other: ignored v2\n' }));
    apply(secret(ns, 'barrier-values', { 'values.yaml': 'greeting: barrier v2\n' }));
    await installedAtRevision(ns, 'barrier', 2);
    expect(await releaseValues(ns, 'barrier')).toEqual(expect.objectContaining({ greeting: 'barrier v2' }));
    expect(releaseRevisions(ns, 'secretive')).toHaveLength(1);
    expect((await chartWorkflowStatus(helmflow.settings, ns, 'secretive')).desiredDigest).toBe(
      workflowBefore.desiredDigest,
    );
    const jobAfter = await clients().batch.readNamespacedJob({ name: 'helm-install-secretive', namespace: ns });
    expect(jobAfter.metadata?.uid).toBe(jobBefore.metadata?.uid);

    // A watched Secret's change reruns it; the rerun reads the ignored Secret as it is now.
    apply(secret(ns, 'watched', { 'values.yaml': 'greeting: watched v2\n' }));
    await installedAtRevision(ns, 'secretive', 2);
    expect(await releaseValues(ns, 'secretive')).toEqual(
      expect.objectContaining({ greeting: 'watched v2', other: 'ignored v2' }),
    );
  });

  // Last: it stops the controller this file started.
  it('keeps a HelmChart deleted while no controller runs Terminating, release installed, until a controller starts', async () => {
    const ns = await freshNamespace('orphan');
    apply(helmChart(ns, 'orphan', { chartContent: chart.chartContent }));
    await chartInstalled(ns, 'orphan');
    await helmflow.stopController();
    const jobs = await watchJobs(ns);

    expect(kubectl(['delete', 'helmcharts.helm.k3sm.io', 'orphan', '-n', ns, '--wait=false']).status).toBe(0);
    // Long enough to cover what a controller does with a delete (the end of this test checks that a controller
    // started afterwards creates the delete Job well within it), and the worker's own timers: nothing acts.
    await holdsFor(
      'the HelmChart to stay Terminating with its finalizer, no delete Job, the workflow still Installed',
      async () => {
        const terminating = await readHelmChart(ns, 'orphan');
        const workflow = await chartWorkflowStatus(helmflow.settings, ns, 'orphan');
        return (
          terminating?.metadata.deletionTimestamp !== undefined &&
          terminating.metadata.finalizers?.includes('helm.k3sm.io/uninstall') === true &&
          jobs.uidsOf('helm-delete-orphan').length === 0 &&
          workflow.phase === 'Installed'
        );
      },
      ORPHAN_WINDOW_MS,
      1_000,
    );
    expect(helm(['status', 'orphan', '-n', ns]).status).toBe(0);

    const started = Date.now();
    const controller = startController(helmflow.settings);
    try {
      await waitFor('the HelmChart to be gone', async () => (await readHelmChart(ns, 'orphan')) === undefined, {
        timeoutMs: 120_000,
      });
      const deleteJob = jobs.added.find((a) => a.name === 'helm-delete-orphan');
      expect((deleteJob?.seenAt ?? Infinity) - started).toBeLessThan(ORPHAN_WINDOW_MS);
      jobs.stop();
      expect(helm(['status', 'orphan', '-n', ns]).status).not.toBe(0);
      const job = await clients().batch.readNamespacedJob({ name: 'helm-delete-orphan', namespace: ns });
      expect(job.status?.succeeded).toBe(1);
    } finally {
      await controller.stop();
    }
  });
});
