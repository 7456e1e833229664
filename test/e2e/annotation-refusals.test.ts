import { PREFLIGHT_CONTAINER } from '../../src/build/index.js';
import { waitFor } from '../../src/lib/wait.js';
import { buildChart } from './support/charts.js';
import { useHelmflow } from './support/helmflow.js';
import { apply, chartFailed, chartInstalled, conditionOf, helmChart, releaseRevisions } from './support/helmcharts.js';
import { clients, eventsOf, freshNamespace, kubectl } from './support/kube.js';

useHelmflow();

const tiny = buildChart({ name: 'tiny-choice' });

/** The names of the init containers of the chart's install Job. */
async function installInit(namespace: string, name: string): Promise<string[]> {
  const job = await clients().batch.readNamespacedJob({ name: `helm-install-${name}`, namespace });
  return (job.spec?.template.spec?.initContainers ?? []).map((c) => c.name);
}

function annotate(namespace: string, name: string, annotation: string): void {
  const args = ['annotate', '--overwrite', 'helmcharts.helm.k3sm.io', name, '-n', namespace, annotation];
  expect(kubectl(args).status).toBe(0);
}

/** Waits for the chart's Failed condition to name the refusal, and for the Warning that says it. */
async function refused(namespace: string, name: string, reason: string, message: string): Promise<void> {
  const failed = await chartFailed(namespace, name);
  expect(conditionOf(failed, 'Failed')).toMatchObject({
    status: 'True',
    reason,
    message: expect.stringContaining(message) as string,
  });
  const warning = await waitFor(`a HelmChartInstallFailed Warning for ${name}`, async () => {
    const events = await eventsOf(namespace, name, 'HelmChartInstallFailed');
    return events.find((e) => e.type === 'Warning' && e.message?.includes(message));
  });
  expect(warning.involvedObject.kind).toBe('HelmChart');
}

describe('a pre-flight or crds annotation of a value helmflow does not know is refused, not ignored', () => {
  it.each([
    ['helm.k3sm.io/preflight', 'false', 'InvalidPreflight', 'skip', 'its values are run and skip', []],
    ['helm.k3sm.io/crds', 'aply', 'InvalidCrds', 'report', 'its values are report and apply', [PREFLIGHT_CONTAINER]],
  ])(
    '%s: %j is refused before any Job (%s); mended to %j it installs',
    async (key, value, reason, mended, choices, init) => {
      const ns = await freshNamespace('choice-refused');
      apply(helmChart(ns, 'typo', { chartContent: tiny.chartContent }, { annotations: { [key]: value } }));
      await refused(ns, 'typo', reason, `annotation ${key} is ${JSON.stringify(value)}; ${choices}`);
      const jobs = await clients().batch.listNamespacedJob({ namespace: ns });
      expect(jobs.items.map((j) => j.metadata?.name)).toEqual([]);

      annotate(ns, 'typo', `${key}=${mended}`);
      await chartInstalled(ns, 'typo');
      expect(await installInit(ns, 'typo')).toEqual(init);
    },
  );

  it('an installed chart given a typo is refused and its release left as it was; removing the typo installs again', async () => {
    const ns = await freshNamespace('choice-installed');
    apply(helmChart(ns, 'kept', { chartContent: tiny.chartContent }));
    await chartInstalled(ns, 'kept');
    expect(releaseRevisions(ns, 'kept').map((r) => r.status)).toEqual(['deployed']);

    annotate(ns, 'kept', 'helm.k3sm.io/crds=yes');
    await refused(ns, 'kept', 'InvalidCrds', 'annotation helm.k3sm.io/crds is "yes"; its values are report and apply');
    expect(releaseRevisions(ns, 'kept').map((r) => r.status)).toEqual(['deployed']);

    expect(kubectl(['annotate', 'helmcharts.helm.k3sm.io', 'kept', '-n', ns, 'helm.k3sm.io/crds-']).status).toBe(0);
    await chartInstalled(ns, 'kept');
    expect(releaseRevisions(ns, 'kept').map((r) => r.status)).toEqual(['superseded', 'deployed']);
  });
});

describe('a refusal of an installed chart whose cause is undone', () => {
  it('a values Secret deleted, then recreated with the same data: refused, then installed again', async () => {
    const ns = await freshNamespace('secret-back');
    const secret = { metadata: { name: 'values' }, stringData: { 'values.yaml': 'greeting: hello\n' } };
    await clients().core.createNamespacedSecret({ namespace: ns, body: secret });
    const spec = { chartContent: tiny.chartContent, valuesSecrets: [{ name: 'values', keys: ['values.yaml'] }] };
    apply(helmChart(ns, 'reads', spec));
    await chartInstalled(ns, 'reads');

    await clients().core.deleteNamespacedSecret({ name: 'values', namespace: ns });
    await refused(ns, 'reads', 'ValuesSecretNotFound', 'names Secret values, which does not exist');
    expect(releaseRevisions(ns, 'reads').map((r) => r.status)).toEqual(['deployed']);

    await clients().core.createNamespacedSecret({ namespace: ns, body: secret });
    await chartInstalled(ns, 'reads');
    expect(releaseRevisions(ns, 'reads').map((r) => r.status)).toEqual(['superseded', 'deployed']);
  });
});
