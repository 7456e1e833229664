// Seed 000, HelmChartConfig: "Its failurePolicy and forceConflicts override the HelmChart's when set" — the
// forceConflicts half, with real helm v4.3.0 against the real kube-apiserver.
//
// What helm 4.3.0 does (checked by hand on the embedded stack): with --server-side=true, once another field
// manager owns a field of a release's object with a different value, every `helm upgrade --install` of that
// release fails with "conflict occurred while applying object …: Apply failed with 1 conflict: conflict with
// "<manager>": .data.<key>" — even one that renders the same manifest; with --force-conflicts the same upgrade
// succeeds and helm takes the field back. (helm refuses --force-conflicts beside --server-side=false, which is why
// the builder drops it there.) So the scenario below is: install, let someone else take a field with server-side
// apply, then rerun the install — it succeeds only when forceConflicts is in effect.
//
// failurePolicy retry keeps the failed Job (and its logs) until anything changes — a HelmChartConfig change
// included — so each run settles and the next one is started by the very change under test.
import type { V1Job } from '@kubernetes/client-node';
import { stringify } from 'yaml';
import { digestAnnotationKey } from '../../src/build/index.js';
import { waitFor, WaitAborted } from '../../src/lib/wait.js';
import { buildChart } from './support/charts.js';
import { useHelmflow } from './support/helmflow.js';
import { apply, chartFailed, chartInstalled, helmChart, releaseRevisions } from './support/helmcharts.js';
import { clients, freshNamespace, kubectl } from './support/kube.js';
import { chartWorkflowStatus } from './support/observe.js';

const GROUP = 'helm.k3sm.io';
const SOMEONE_ELSE = 'someone-else';

// A ConfigMap whose data.owner the chart sets from its values: the field the two managers fight over.
const chart = buildChart({
  name: 'contested',
  templates: {
    'contested.yaml': `apiVersion: v1
kind: ConfigMap
metadata:
  name: {{ .Release.Name }}-contested
  namespace: {{ .Release.Namespace }}
data:
  owner: {{ .Values.owner | quote }}
`,
  },
});

const helmflow = useHelmflow({ group: GROUP });

function helmChartConfig(namespace: string, name: string, spec: Record<string, unknown>) {
  return { apiVersion: `${GROUP}/v1`, kind: 'HelmChartConfig', metadata: { name, namespace }, spec };
}

/** The HelmChart under test: server-side apply on, each run settling (retry), one pod per Job. */
function contestedChart(namespace: string, name: string, owner: string, extra: Record<string, unknown> = {}) {
  return helmChart(namespace, name, {
    chartContent: chart.chartContent,
    serverSide: 'true',
    failurePolicy: 'retry',
    backOffLimit: 0,
    valuesContent: `owner: ${owner}\n`,
    ...extra,
  });
}

async function contested(namespace: string, release: string) {
  const cm = await clients().core.readNamespacedConfigMap({ name: `${release}-contested`, namespace });
  const owners = (cm.metadata?.managedFields ?? [])
    .filter((f) => (f.fieldsV1 as { 'f:data'?: Record<string, unknown> } | undefined)?.['f:data']?.['f:owner'])
    .map((f) => f.manager);
  return { value: cm.data?.owner, owners };
}

/** Someone else takes data.owner with server-side apply (forcing it away from helm, as kubectl must). */
function takeOver(namespace: string, release: string): void {
  const configMap = {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name: `${release}-contested`, namespace },
    data: { owner: 'someone else' },
  };
  const result = kubectl(
    ['apply', '--server-side', `--field-manager=${SOMEONE_ELSE}`, '--force-conflicts', '-f', '-'],
    stringify(configMap),
  );
  if (result.status !== 0) throw new Error(`kubectl apply --server-side failed: ${result.stderr}`);
}

async function installJobOf(namespace: string, name: string): Promise<V1Job> {
  return clients().batch.readNamespacedJob({ name: `helm-install-${name}`, namespace });
}

const helmArgs = (job: V1Job) => job.spec?.template.spec?.containers[0]?.args ?? [];

/**
 * Waits until the chart's workflow has settled a desired state other than `previous` (the digest before the change
 * under test) — Installed or Failed — with a Job built from that very state (the Job's digest annotation). So a
 * HelmChartConfig the controller had not yet seen when it first signalled cannot pass for the run under test.
 * Settling the other way ends the wait at once, with helm's last words.
 */
async function settled(
  namespace: string,
  name: string,
  phase: 'Installed' | 'Failed',
  previous?: string,
): Promise<{ job: V1Job; digest: string }> {
  return waitFor(
    `the workflow of ${namespace}/${name} to settle ${phase} with a Job of its current desired state`,
    async () => {
      const s = await chartWorkflowStatus(helmflow.settings, namespace, name);
      const digest = s.desiredDigest;
      if (digest === undefined || digest === previous) return undefined;
      const other = phase === 'Installed' ? 'Failed' : 'Installed';
      const otherDone = other === 'Installed' ? s.installedDigest : s.lastFailure?.digest;
      if (s.phase === other && otherDone === digest) {
        const log = kubectl(['logs', '-n', namespace, `job/helm-install-${name}`]).stdout.slice(-400);
        throw new WaitAborted(`it settled ${other} instead (${s.lastFailure?.reason ?? 'no failure'}): ${log}`);
      }
      const done = phase === 'Installed' ? s.installedDigest : s.lastFailure?.digest;
      if (s.phase !== phase || done !== digest) return undefined;
      const job = await installJobOf(namespace, name);
      if (job.metadata?.annotations?.[digestAnnotationKey(GROUP)] !== digest) return undefined;
      const finished = phase === 'Installed' ? (job.status?.succeeded ?? 0) > 0 : (job.status?.failed ?? 0) > 0;
      return finished ? { job, digest } : undefined;
    },
    { timeoutMs: 120_000, intervalMs: 500 },
  );
}

async function installFailedEvents(namespace: string, name: string) {
  const list = await clients().core.listNamespacedEvent({ namespace });
  return list.items.filter((e) => e.involvedObject.name === name && e.reason === 'HelmChartInstallFailed');
}

/** What the real system reports of a run that hit the conflict: Failed=True, the Warning, and helm's own words. */
async function expectConflictReported(namespace: string, name: string, job: V1Job): Promise<void> {
  const conflict = `conflict with "${SOMEONE_ELSE}": .data.owner`;
  const failed = await chartFailed(namespace, name);
  expect(failed.status?.conditions?.find((c) => c.type === 'Failed')?.status).toBe('True');
  expect(helmArgs(job)).toContain('--server-side=true');
  expect(helmArgs(job)).not.toContain('--force-conflicts');
  expect(kubectl(['logs', '-n', namespace, `job/helm-install-${name}`]).stdout).toContain(conflict);
  const [event] = await waitFor('a HelmChartInstallFailed Warning naming the conflict', async () => {
    const found = (await installFailedEvents(namespace, name)).filter((e) => e.message?.includes(conflict));
    return found.length > 0 ? found : undefined;
  });
  expect(event?.type).toBe('Warning');
  // helm did not take the field: it still holds someone else's value, owned by someone else alone.
  expect(await contested(namespace, name)).toEqual({ value: 'someone else', owners: [SOMEONE_ELSE] });
}

describe('HelmChartConfig forceConflicts (real helm server-side apply on the embedded stack)', () => {
  it("forces a field-ownership conflict the HelmChart's own forceConflicts (unset) does not", async () => {
    const ns = await freshNamespace('force');
    apply(contestedChart(ns, 'forced', 'the chart'));
    const installed = await settled(ns, 'forced', 'Installed');
    await chartInstalled(ns, 'forced');
    expect(await contested(ns, 'forced')).toEqual({ value: 'the chart', owners: ['helm'] });

    takeOver(ns, 'forced');
    expect(await contested(ns, 'forced')).toEqual({ value: 'someone else', owners: [SOMEONE_ELSE] });

    // A spec change reruns the install; without forceConflicts helm's server-side apply hits the conflict.
    apply(contestedChart(ns, 'forced', 'the chart, v2'));
    const failed = await settled(ns, 'forced', 'Failed', installed.digest);
    await expectConflictReported(ns, 'forced', failed.job);

    // The HelmChartConfig alone (the HelmChart is unchanged) turns forceConflicts on: the rerun takes the field.
    apply(helmChartConfig(ns, 'forced', { forceConflicts: true }));
    const forced = await settled(ns, 'forced', 'Installed', failed.digest);
    expect(helmArgs(forced.job)).toEqual(expect.arrayContaining(['--server-side=true', '--force-conflicts']));
    await chartInstalled(ns, 'forced');
    expect(await contested(ns, 'forced')).toEqual({ value: 'the chart, v2', owners: ['helm'] });
    const history = releaseRevisions(ns, 'forced').map((r) => r.status);
    expect(history).toContain('failed');
    expect(history.at(-1)).toBe('deployed');
  });

  it("does not force it when the HelmChartConfig sets forceConflicts false over the HelmChart's true", async () => {
    const ns = await freshNamespace('noforce');
    apply(helmChartConfig(ns, 'unforced', { forceConflicts: false }));
    apply(contestedChart(ns, 'unforced', 'the chart', { forceConflicts: true }));
    const installed = await settled(ns, 'unforced', 'Installed');
    expect(helmArgs(installed.job)).not.toContain('--force-conflicts');
    await chartInstalled(ns, 'unforced');

    takeOver(ns, 'unforced');
    apply(contestedChart(ns, 'unforced', 'the chart, v2', { forceConflicts: true }));
    const failed = await settled(ns, 'unforced', 'Failed', installed.digest);
    await expectConflictReported(ns, 'unforced', failed.job);

    // Control: without the HelmChartConfig the HelmChart's own forceConflicts: true applies and forces it.
    expect(kubectl(['delete', `helmchartconfigs.${GROUP}`, 'unforced', '-n', ns]).status).toBe(0);
    const forced = await settled(ns, 'unforced', 'Installed', failed.digest);
    expect(helmArgs(forced.job)).toContain('--force-conflicts');
    await chartInstalled(ns, 'unforced');
    expect(await contested(ns, 'unforced')).toEqual({ value: 'the chart, v2', owners: ['helm'] });
  });
});
