import { execFileSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { parseChartCrds, type HelmChart } from '../../src/api/index.js';
import { archiveCrds } from '../../src/chart/crds.js';
import { toolPaths } from '../../src/config/pins.js';
import { crdYaml, tarGz } from '../unit/support/archive.js';
import { waitFor } from '../../src/lib/wait.js';
import { startChartRepo, type ChartRepo } from './support/chart-repo.js';
import { buildChart, type TestChart } from './support/charts.js';
import { useHelmflow } from './support/helmflow.js';
import {
  apply,
  chartFailed,
  chartInstalled,
  conditionOf,
  helmChart,
  readHelmChart,
  releaseRevisions,
} from './support/helmcharts.js';
import { clients, freshNamespace, kubectl } from './support/kube.js';

useHelmflow();

const crdsCurrent = (chart: HelmChart | undefined) => chart?.status?.conditions?.find((c) => c.type === 'CRDsCurrent');

/** The `spec` fields the cluster's CRD declares for v1. */
function clusterFields(crd: string): string[] {
  const got = kubectl(['get', 'crd', crd, '-o', 'json']);
  if (got.status !== 0) throw new Error(got.stderr);
  const parsed = JSON.parse(got.stdout) as {
    spec: {
      versions: { name: string; schema: { openAPIV3Schema: { properties: { spec: { properties: object } } } } }[];
    };
  };
  const v1 = parsed.spec.versions.find((v) => v.name === 'v1');
  return Object.keys(v1?.schema.openAPIV3Schema.properties.spec.properties ?? {}).sort();
}

async function event(namespace: string, name: string, reason: string) {
  return waitFor(
    `a ${reason} Event on HelmChart ${namespace}/${name}`,
    async () => {
      const list = await clients().core.listNamespacedEvent({ namespace });
      return list.items.find((e) => e.involvedObject.name === name && e.reason === reason);
    },
    { timeoutMs: 30_000, intervalMs: 200 },
  );
}

async function crdsCondition(namespace: string, name: string, reason: string) {
  return waitFor(
    `HelmChart ${namespace}/${name} to have CRDsCurrent with reason ${reason}`,
    async () => {
      const chart = await readHelmChart(namespace, name);
      return crdsCurrent(chart)?.reason === reason ? chart : undefined;
    },
    { timeoutMs: 120_000, intervalMs: 200 },
  );
}

describe("the worker's reading of a chartContent archive's crds/", () => {
  it('finds the same CRDs as the pinned helm show crds, subcharts (archived and unpacked) included', async () => {
    const chartYaml = (name: string) => `apiVersion: v2\nname: ${name}\nversion: 0.1.0\n`;
    const db = await tarGz({ 'db/Chart.yaml': chartYaml('db'), 'db/crds/tables.yaml': crdYaml('tables') });
    const archive = await tarGz({
      'app/Chart.yaml': chartYaml('app'),
      'app/crds/widgets.yaml': crdYaml('widgets', 'example.com', ['size', 'color']),
      'app/crds/more/gadgets.json': JSON.stringify(parseChartCrds(crdYaml('gadgets'))[0]),
      'app/crds/notes.txt': crdYaml('notes'),
      'app/charts/db-0.1.0.tgz': db,
      'app/charts/cache/Chart.yaml': chartYaml('cache'),
      'app/charts/cache/crds/entries.yaml': `---\n${crdYaml('entries')}`,
      'app/charts/_skipped/Chart.yaml': chartYaml('skipped'),
      'app/charts/_skipped/crds/ghosts.yaml': crdYaml('ghosts'),
    });
    const file = path.join(mkdtempSync(path.join(tmpdir(), 'helmflow-archive-')), 'app-0.1.0.tgz');
    writeFileSync(file, archive);
    const printed = execFileSync(toolPaths().helm, ['show', 'crds', file], { encoding: 'utf8' });
    const byName = (text: string) =>
      parseChartCrds(text).sort((a, b) => (a.metadata?.name ?? '').localeCompare(b.metadata?.name ?? ''));
    const helms = byName(printed);
    expect(helms.map((c) => c.metadata?.name)).toEqual([
      'entries.example.com',
      'gadgets.example.com',
      'tables.example.com',
      'widgets.example.com',
    ]);
    expect(byName(await archiveCrds(archive))).toEqual(helms);
  });
});

/** Each source's charts, v1 then v2, and what compares their crds/ before an upgrade. */
interface StaleCase {
  source: string;
  chart: string;
  spec: (v: TestChart) => HelmChart['spec'];
  /** Whether helm-crds-<name> printed the crds/ (a fetched chart), or the worker read the archive (chartContent). */
  crdsJob: boolean;
}

let repo: ChartRepo;
const repoCharts = [
  buildChart({ name: 'crdrepo', version: '0.1.0', crd: true }),
  buildChart({ name: 'crdrepo', version: '0.2.0', crd: true, widgetFields: { color: 'blue' } }),
];
beforeAll(async () => {
  repo = await startChartRepo(repoCharts);
});
afterAll(async () => {
  await repo.close();
});

const staleCases: StaleCase[] = [
  { source: 'chartContent', chart: 'crdstale', spec: (v) => ({ chartContent: v.chartContent }), crdsJob: false },
  {
    source: 'a chart repository',
    chart: 'crdrepo',
    spec: (v) => ({ repo: repo.url, chart: v.name, version: v.version }),
    crdsJob: true,
  },
];

describe("a chart's crds/ that helm upgrade leaves behind", () => {
  it.each(staleCases)(
    '$source: is detected before the upgrade, which does not run: CRDsStale naming the CRD and field, a Warning, the CRD left alone; annotating crds: apply lets the next attempt upgrade',
    async ({ chart: name, spec, crdsJob }) => {
      const v1 = repoCharts[0]?.name === name ? repoCharts[0] : buildChart({ name, version: '0.1.0', crd: true });
      const v2 =
        repoCharts[1]?.name === name
          ? repoCharts[1]
          : buildChart({ name, version: '0.2.0', crd: true, widgetFields: { color: 'blue' } });
      const crd = v1.crd?.name ?? '';
      const ns = await freshNamespace('crds-stale');
      apply(helmChart(ns, 'stale', spec(v1)));
      await chartInstalled(ns, 'stale');
      // The first install created the CRD from crds/: nothing is behind.
      expect(crdsCurrent(await readHelmChart(ns, 'stale'))).toMatchObject({ status: 'True', reason: 'CRDsCurrent' });
      expect(clusterFields(crd)).toEqual(['size']);
      const installJob = await clients().batch.readNamespacedJob({ name: 'helm-install-stale', namespace: ns });
      // A fetched chart's install Job prints its crds/; a chartContent chart's are read from its archive instead.
      const init = installJob.spec?.template.spec?.initContainers?.map((c) => c.name);
      expect(init).toEqual(crdsJob ? ['preflight', 'crds'] : ['preflight']);

      const since = Date.now();
      apply(helmChart(ns, 'stale', spec(v2)));
      const chart = await crdsCondition(ns, 'stale', 'CRDsStale');
      process.stderr.write(`crds (${name}): apply → CRDsStale: ${((Date.now() - since) / 1000).toFixed(1)} s\n`);
      const condition = crdsCurrent(chart);
      expect(condition?.status).toBe('False');
      expect(condition?.message).toContain(`${crd}: v1 lacks spec.color`);
      expect(condition?.message).toContain('helm.k3sm.io/crds=apply');
      const warning = await event(ns, 'stale', 'HelmChartCRDsStale');
      expect(warning.type).toBe('Warning');
      expect(warning.message).toContain(`${crd}: v1 lacks spec.color`);

      // The comparison ran before the upgrade (in helm-crds-stale, or in the worker), and the upgrade did not run:
      // the attempt failed as CRDsStale, helm has revision 1 only, and no install Job was made for the new spec.
      const failed = conditionOf(await chartFailed(ns, 'stale'), 'Failed');
      expect(failed).toMatchObject({ reason: 'CRDsStale' });
      expect(failed?.message).toContain('helm upgrade did not run');
      expect(releaseRevisions(ns, 'stale').map((r) => r.revision)).toEqual([1]);
      const install = await clients().batch.readNamespacedJob({ name: 'helm-install-stale', namespace: ns });
      expect(install.metadata?.uid).toBe(installJob.metadata?.uid);
      const jobs = await clients().batch.listNamespacedJob({ namespace: ns });
      const crdsJobs = jobs.items.filter((j) => j.metadata?.name === 'helm-crds-stale');
      expect(crdsJobs.map((j) => j.status?.succeeded)).toEqual(crdsJob ? [1] : []);
      // Without the annotation helmflow changes no CRD (and helm never upgrades crds/).
      expect(clusterFields(crd)).toEqual(['size']);

      // The remedy the condition names: the next attempt (after the reinstall backoff) applies them, then upgrades.
      apply(helmChart(ns, 'stale', spec(v2), { annotations: { 'helm.k3sm.io/crds': 'apply' } }));
      await crdsCondition(ns, 'stale', 'CRDsApplied');
      await chartInstalled(ns, 'stale');
      expect(clusterFields(crd)).toEqual(['color', 'size']);
      expect(releaseRevisions(ns, 'stale').map((r) => r.revision)).toEqual([1, 2]);
    },
  );

  it('with helm.k3sm.io/crds: apply, the chart CRDs are server-side applied and the upgrade keeps the new field', async () => {
    const v1 = buildChart({ name: 'crdapply', version: '0.1.0', crd: true });
    const v2 = buildChart({ name: 'crdapply', version: '0.2.0', crd: true, widgetFields: { color: 'blue' } });
    const crd = v1.crd ?? { name: '', group: '', plural: '', kind: '' };
    const ns = await freshNamespace('crds-apply');
    apply(helmChart(ns, 'applied', { chartContent: v1.chartContent }));
    await chartInstalled(ns, 'applied');

    apply(
      helmChart(ns, 'applied', { chartContent: v2.chartContent }, { annotations: { 'helm.k3sm.io/crds': 'apply' } }),
    );
    const chart = await crdsCondition(ns, 'applied', 'CRDsApplied');
    expect(crdsCurrent(chart)?.message).toContain(`${crd.name}: v1 lacks spec.color`);
    const applied = await event(ns, 'applied', 'HelmChartCRDsApplied');
    expect(applied.type).toBe('Normal');
    expect(clusterFields(crd.name)).toEqual(['color', 'size']);

    // The upgrade lands with the field kept (not refused, not pruned).
    await waitFor(
      'the widget upgraded with spec.color',
      async () => {
        const got = kubectl(['get', `${crd.plural}.${crd.group}`, 'applied', '-n', ns, '-o', 'jsonpath={.spec.color}']);
        const current = await readHelmChart(ns, 'applied');
        return got.stdout === 'blue' && current?.status?.phase === 'Installed';
      },
      { timeoutMs: 120_000, intervalMs: 500 },
    );
    // Applied before the upgrade's Job existed, so helm's server-side apply never met the old schema: the install
    // Job of the new spec was created after the Event (second resolution) and none of its pods failed.
    const install = await clients().batch.readNamespacedJob({ name: 'helm-install-applied', namespace: ns });
    const appliedAt = new Date(applied.firstTimestamp ?? applied.eventTime ?? 0).getTime();
    expect(install.metadata?.creationTimestamp?.getTime()).toBeGreaterThanOrEqual(appliedAt);
    expect(install.status?.failed ?? 0).toBe(0);
    expect(releaseRevisions(ns, 'applied').map((r) => r.revision)).toEqual([1, 2]);
  });
});
