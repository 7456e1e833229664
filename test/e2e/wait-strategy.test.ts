import { stringify } from 'yaml';
import { HELM_CONTAINER } from '../../src/build/index.js';
import { waitFor } from '../../src/lib/wait.js';
import { buildChart } from './support/charts.js';
import { useHelmflow } from './support/helmflow.js';
import { apply, chartFailed, chartInstalled, conditionOf, helmChart, releaseRevisions } from './support/helmcharts.js';
import { clients, freshNamespace, kubectl } from './support/kube.js';

useHelmflow();

// A kind of the test's own, without a status subresource, so the object keeps the status its manifest gives it.
const crdName = 'probes.waits.charts.helmflow.test';
const crd = {
  apiVersion: 'apiextensions.k8s.io/v1',
  kind: 'CustomResourceDefinition',
  metadata: { name: crdName },
  spec: {
    group: 'waits.charts.helmflow.test',
    names: { kind: 'Probe', plural: 'probes', singular: 'probe', listKind: 'ProbeList' },
    scope: 'Namespaced',
    versions: [
      {
        name: 'v1',
        served: true,
        storage: true,
        schema: { openAPIV3Schema: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } },
      },
    ],
  },
};

// An object that says it is still being reconciled, for ever: helm 4's watcher (kstatus) waits for it to settle,
// helm 3's legacy wait does not look at custom resources at all.
const unsettled = buildChart({
  name: 'unsettled',
  templates: {
    'probe.yaml': `apiVersion: waits.charts.helmflow.test/v1
kind: Probe
metadata:
  name: {{ .Release.Name }}
  namespace: {{ .Release.Namespace }}
status:
  conditions:
    - type: Reconciling
      status: "True"
      reason: NeverDone
`,
  },
});
const tiny = buildChart({ name: 'tiny-wait' });

beforeAll(async () => {
  expect(kubectl(['apply', '-f', '-'], stringify(crd)).status).toBe(0);
  await waitFor(
    `CRD ${crdName} to be established`,
    () => kubectl(['wait', '--for=condition=Established', `crd/${crdName}`, '--timeout=5s']).status === 0,
    { timeoutMs: 30_000, intervalMs: 500 },
  );
});
afterAll(() => {
  kubectl(['delete', 'crd', crdName, '--wait=false']);
});

/** The wait flags of the install Job's helm container. */
async function waitFlags(namespace: string, name: string): Promise<string[]> {
  const job = await clients().batch.readNamespacedJob({ name: `helm-install-${name}`, namespace });
  const args = job.spec?.template.spec?.containers.find((c) => c.name === HELM_CONTAINER)?.args ?? [];
  return args.filter((a) => a.startsWith('--wait'));
}

describe('helm.k3sm.io/wait chooses how the Jobs wait for a release', () => {
  it('legacy installs a chart whose custom resource never settles; the default watcher waits it out and fails', async () => {
    const ns = await freshNamespace('wait-strategy');
    const spec = { chartContent: unsettled.chartContent, timeout: '15s', backOffLimit: 0 };
    apply(helmChart(ns, 'legacy', spec, { annotations: { 'helm.k3sm.io/wait': 'legacy' } }));
    // abort keeps the failed Job and its log in place (reinstall would replace it).
    apply(helmChart(ns, 'watcher', { ...spec, failurePolicy: 'abort' }));

    await chartInstalled(ns, 'legacy');
    expect(await waitFlags(ns, 'legacy')).toEqual(['--wait=legacy']);
    expect(releaseRevisions(ns, 'legacy').map((r) => r.status)).toEqual(['deployed']);

    const failed = await chartFailed(ns, 'watcher');
    expect(conditionOf(failed, 'Failed')?.status).toBe('True');
    expect(await waitFlags(ns, 'watcher')).toEqual(['--wait']);
    // helm ran the upgrade and gave up waiting on the object the legacy wait never looked at.
    expect(releaseRevisions(ns, 'watcher').map((r) => r.status)).toEqual(['failed']);
    const log = kubectl(['logs', '-n', ns, 'job/helm-install-watcher', '-c', HELM_CONTAINER]).stdout;
    expect(log).toContain('Probe');
  });

  it('refuses a strategy helm does not have before any Job, and installs once the annotation is mended', async () => {
    const ns = await freshNamespace('wait-refused');
    apply(
      helmChart(ns, 'typo', { chartContent: tiny.chartContent }, { annotations: { 'helm.k3sm.io/wait': 'Legacy' } }),
    );
    const failed = await chartFailed(ns, 'typo');
    expect(conditionOf(failed, 'Failed')).toMatchObject({
      status: 'True',
      reason: 'InvalidWait',
      message: expect.stringContaining(
        `annotation helm.k3sm.io/wait is "Legacy"; helm's wait strategies are watcher and legacy`,
      ) as string,
    });
    const warning = await waitFor('a HelmChartInstallFailed Warning naming the annotation', async () => {
      const events = await clients().core.listNamespacedEvent({ namespace: ns });
      return events.items.find(
        (e) => e.type === 'Warning' && e.reason === 'HelmChartInstallFailed' && e.message?.includes('/wait'),
      );
    });
    expect(warning.involvedObject.name).toBe('typo');
    const jobs = await clients().batch.listNamespacedJob({ namespace: ns });
    expect(jobs.items.map((j) => j.metadata?.name)).toEqual([]);

    const mended = ['annotate', '--overwrite', 'helmcharts.helm.k3sm.io', 'typo', '-n', ns, 'helm.k3sm.io/wait=legacy'];
    expect(kubectl(mended).status).toBe(0);
    await chartInstalled(ns, 'typo');
    expect(await waitFlags(ns, 'typo')).toEqual(['--wait=legacy']);
  });
});
