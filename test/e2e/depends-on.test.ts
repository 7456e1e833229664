import { DEFAULT_API_GROUP, DEPENDS_ON_ANNOTATION } from '../../src/api/index.js';
import { waitFor } from '../../src/lib/wait.js';
import { buildChart } from './support/charts.js';
import { useHelmflow } from './support/helmflow.js';
import { apply, chartInstalled, conditionOf, helmChart, readHelmChart } from './support/helmcharts.js';
import { clients, eventsOf, freshNamespace, kubectl } from './support/kube.js';
import { chartWorkflowDetails, watchJobs } from './support/observe.js';

const helmflow = useHelmflow();
const chart = buildChart({ name: 'ordered', values: { greeting: 'hello' } });

const dependsOn = (value: string) => ({ annotations: { [DEPENDS_ON_ANNOTATION]: value } });

/** The DependenciesReady condition once it has `reason`, within a deadline. */
async function dependenciesCondition(namespace: string, name: string, reason: string) {
  let found: ReturnType<typeof conditionOf>;
  await waitFor(`${namespace}/${name}: DependenciesReady ${reason}`, async () => {
    found = conditionOf(await readHelmChart(namespace, name), 'DependenciesReady');
    return found?.reason === reason;
  });
  return found;
}

describe('depends-on: a chart waits for the charts it names', () => {
  it('holds the install until the dependency is installed, says so on the chart and in Temporal, then installs', async () => {
    const ns = await freshNamespace('depends-on');
    const jobs = await watchJobs(ns);
    try {
      const applied = Date.now();
      apply(helmChart(ns, 'app', { chartContent: chart.chartContent }, dependsOn('db')));
      const waiting = await dependenciesCondition(ns, 'app', 'DependenciesNotReady');
      console.error(`depends-on: apply → DependenciesNotReady ${String(Date.now() - applied)} ms`);
      expect(waiting).toMatchObject({ status: 'False', message: `waiting for ${ns}/db (not found) to be installed` });
      await waitFor('the Event', async () => (await eventsOf(ns, 'app', 'HelmChartWaitingForDependencies')).length > 0);
      expect(await chartWorkflowDetails(helmflow.settings, ns, 'app')).toBe(`${ns}/app: ${waiting?.message ?? ''}`);
      expect(jobs.uidsOf('helm-install-app')).toEqual([]);

      apply(helmChart(ns, 'db', { chartContent: chart.chartContent }));
      const db = await chartInstalled(ns, 'db');
      const app = await chartInstalled(ns, 'app');
      expect(conditionOf(app, 'DependenciesReady')).toMatchObject({ status: 'True', reason: 'DependenciesInstalled' });
      // app's one install Job was created only once db was installed.
      const dbInstalledAt = Date.parse(conditionOf(db, 'Installed')?.lastTransitionTime ?? '');
      const appJob = jobs.added.find((j) => j.name === 'helm-install-app');
      const dbJob = jobs.added.find((j) => j.name === 'helm-install-db');
      expect(jobs.uidsOf('helm-install-app')).toHaveLength(1);
      expect(dbJob !== undefined && appJob !== undefined && dbJob.seenAt < appJob.seenAt).toBe(true);
      // The apiserver keeps seconds: the Job's creation is not before the second db became installed.
      const appJobRead = await clients().batch.readNamespacedJob({ name: 'helm-install-app', namespace: ns });
      const appJobCreated = appJobRead.metadata?.creationTimestamp?.getTime() ?? NaN;
      expect(appJobCreated).toBeGreaterThanOrEqual(Math.floor(dbInstalledAt / 1000) * 1000);
      expect(await chartWorkflowDetails(helmflow.settings, ns, 'app')).toBe('');
    } finally {
      jobs.stop();
    }
  });

  it('refuses a cycle on every chart in it, with a Warning, and installs them once it is broken', async () => {
    const ns = await freshNamespace('depends-cycle');
    const jobs = await watchJobs(ns);
    try {
      const applied = Date.now();
      apply(helmChart(ns, 'a', { chartContent: chart.chartContent }, dependsOn('b')));
      apply(helmChart(ns, 'b', { chartContent: chart.chartContent }, dependsOn(`${ns}/a`)));
      const [a, b] = [
        await dependenciesCondition(ns, 'a', 'DependencyCycle'),
        await dependenciesCondition(ns, 'b', 'DependencyCycle'),
      ];
      console.error(`depends-on: apply → DependencyCycle on both ${String(Date.now() - applied)} ms`);
      expect(a?.message).toContain(`${ns}/a → ${ns}/b → ${ns}/a`);
      expect(b?.message).toContain(`${ns}/b → ${ns}/a → ${ns}/b`);
      expect((await readHelmChart(ns, 'a'))?.status?.phase).toBe('Failed');
      await waitFor('the Warnings', async () => {
        const warnings = [
          ...(await eventsOf(ns, 'a', 'HelmChartDependencyCycle')),
          ...(await eventsOf(ns, 'b', 'HelmChartDependencyCycle')),
        ];
        return warnings.length === 2 && warnings.every((e) => e.type === 'Warning');
      });
      expect(jobs.added).toEqual([]);

      // Breaking the cycle on b re-decides a too (it depends on b): b installs, then a.
      // Qualified: other suites serve helm.cattle.io's HelmChart on the same stack, which a bare `helmchart` may name.
      const annotated = kubectl([
        'annotate',
        `helmcharts.${DEFAULT_API_GROUP}`,
        'b',
        '-n',
        ns,
        `${DEPENDS_ON_ANNOTATION}-`,
      ]);
      expect(annotated).toMatchObject({ status: 0 });
      await chartInstalled(ns, 'b');
      const installedA = await chartInstalled(ns, 'a');
      expect(conditionOf(installedA, 'DependenciesReady')).toMatchObject({ status: 'True' });
      expect(jobs.added.map((j) => j.name)).toEqual(['helm-install-b', 'helm-install-a']);
    } finally {
      jobs.stop();
    }
  });

  it('refuses an annotation that names no chart, and names the entry', async () => {
    const ns = await freshNamespace('depends-invalid');
    apply(helmChart(ns, 'bad', { chartContent: chart.chartContent }, dependsOn('db/Not_A_Name')));
    const refused = await dependenciesCondition(ns, 'bad', 'InvalidDependsOn');
    expect(refused?.message).toContain('"db/Not_A_Name" is not a HelmChart reference');
    await waitFor('the Warning', async () => (await eventsOf(ns, 'bad', 'HelmChartInvalidDependsOn')).length > 0);
  });
});
