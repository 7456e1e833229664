import { buildChart, releaseValues } from './support/charts.js';
import { startChartRepo, type ChartRepo } from './support/chart-repo.js';
import { startOciRegistry, type OciRegistry } from './support/oci-registry.js';
import { installCrds } from './support/crds.js';
import { startHelmflow, type RunningHelmflow } from './support/helmflow.js';
import { apply, chartInstalled, helmChart } from './support/helmcharts.js';
import { clients, freshNamespace } from './support/kube.js';

let helmflow: RunningHelmflow;
let repo: ChartRepo;
let registry: OciRegistry;
const remote = buildChart({ name: 'remote', version: '0.2.0', values: { origin: 'the repository' } });
beforeAll(async () => {
  await installCrds('helm.k3sm.io');
  repo = await startChartRepo([remote]);
  registry = await startOciRegistry([remote]);
  helmflow = startHelmflow();
});
afterAll(async () => {
  await helmflow.stop();
  await repo.close();
  await registry.close();
});

async function installJob(namespace: string, name: string) {
  return clients().batch.readNamespacedJob({ name: `helm-install-${name}`, namespace });
}

describe('chart sources fetched over HTTPS', () => {
  it('repo plus chart: resolved against the repository, and the Job carries the egress annotation', async () => {
    const ns = await freshNamespace('repo');
    apply(helmChart(ns, 'from-repo', { repo: repo.url, chart: 'remote', version: '0.2.0' }));
    await chartInstalled(ns, 'from-repo');
    expect(await releaseValues(ns, 'from-repo')).toEqual(expect.objectContaining({ origin: 'the repository' }));
    expect(repo.hits.get('index.yaml')).toBeGreaterThan(0);
    expect(repo.hits.get('remote-0.2.0.tgz')).toBeGreaterThan(0);
    const job = await installJob(ns, 'from-repo');
    expect(job.metadata?.annotations?.['k3sm.io/internet-egress']).toBe('true');
    expect(job.spec?.template.metadata?.annotations?.['k3sm.io/internet-egress']).toBe('true');
  });

  it('chart alone as an https URL of the archive', async () => {
    const ns = await freshNamespace('url');
    apply(helmChart(ns, 'from-url', { chart: `${repo.url}/remote-0.2.0.tgz` }));
    await chartInstalled(ns, 'from-url');
    expect(await releaseValues(ns, 'from-url')).toEqual(expect.objectContaining({ origin: 'the repository' }));
    expect((await installJob(ns, 'from-url')).metadata?.annotations?.['k3sm.io/internet-egress']).toBe('true');
  });

  it('chart alone as an oci:// reference, pulled from an OCI registry', async () => {
    const ns = await freshNamespace('oci');
    apply(helmChart(ns, 'from-oci', { chart: `${registry.base}/remote`, version: '0.2.0' }));
    await chartInstalled(ns, 'from-oci');
    expect(await releaseValues(ns, 'from-oci')).toEqual(expect.objectContaining({ origin: 'the repository' }));
    expect(registry.requests).toEqual(expect.arrayContaining(['GET /v2/charts/remote/manifests/0.2.0']));
    expect((await installJob(ns, 'from-oci')).metadata?.annotations?.['k3sm.io/internet-egress']).toBe('true');
  });

  it('chartContent fetches nothing, and its Job carries no egress annotation', async () => {
    const ns = await freshNamespace('content');
    const before = repo.hits.get('remote-0.2.0.tgz') ?? 0;
    // chart and repo are set too: chartContent wins, so the repository is not asked.
    apply(helmChart(ns, 'inline', { chartContent: remote.chartContent, repo: repo.url, chart: 'remote' }));
    await chartInstalled(ns, 'inline');
    expect(repo.hits.get('remote-0.2.0.tgz') ?? 0).toBe(before);
    expect((await installJob(ns, 'inline')).metadata?.annotations?.['k3sm.io/internet-egress']).toBeUndefined();
  });
});
