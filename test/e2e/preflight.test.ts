import { freePort } from '../../src/lib/free-port.js';
import { waitFor } from '../../src/lib/wait.js';
import { startChartRepo, type ChartRepo } from './support/chart-repo.js';
import { buildChart, releaseValues } from './support/charts.js';
import { useHelmflow } from './support/helmflow.js';
import {
  apply,
  chartInstalled,
  conditionOf,
  helmChart,
  readHelmChart,
  releaseRevisions,
} from './support/helmcharts.js';
import { clients, freshNamespace } from './support/kube.js';

useHelmflow();

const served = buildChart({ name: 'served', version: '1.0.0', values: { greeting: 'hello' } });
let repo: ChartRepo;
beforeAll(async () => {
  repo = await startChartRepo([served]);
});
afterAll(async () => {
  await repo.close();
});

/** Waits until the chart's `type` condition has `reason`; returns the chart and the seconds since `since`. */
async function conditionReason(namespace: string, name: string, type: string, reason: string, since: number) {
  const chart = await waitFor(
    `HelmChart ${namespace}/${name} to have ${type} with reason ${reason}`,
    async () => {
      const current = await readHelmChart(namespace, name);
      return conditionOf(current, type)?.reason === reason ? current : undefined;
    },
    { timeoutMs: 120_000, intervalMs: 200 },
  );
  return { chart, seconds: (Date.now() - since) / 1000 };
}

async function warnings(namespace: string, name: string, reason: string) {
  const list = await clients().core.listNamespacedEvent({ namespace });
  return list.items.filter((e) => e.involvedObject.name === name && e.reason === reason && e.type === 'Warning');
}

/** The chart's Warning of that reason, waited for (it is written just after the condition). */
async function warning(namespace: string, name: string, reason: string) {
  return waitFor(
    `a ${reason} Warning on HelmChart ${namespace}/${name}`,
    async () => (await warnings(namespace, name, reason))[0],
    { timeoutMs: 30_000, intervalMs: 200 },
  );
}

/** The install Job's pods: which ran helm upgrade at all (a pod failed in pre-flight never starts it). */
async function helmContainerRan(namespace: string, name: string): Promise<boolean> {
  const pods = await clients().core.listNamespacedPod({ namespace, labelSelector: `job-name=helm-install-${name}` });
  return pods.items.some((pod) =>
    pod.status?.containerStatuses?.some((c) => c.name === 'helm' && c.state?.waiting === undefined),
  );
}

function report(what: string, seconds: number): void {
  process.stderr.write(`pre-flight: apply → ${what}: ${seconds.toFixed(1)} s\n`);
}

describe('pre-flight: the install Job fetches and renders the chart before anything is applied', () => {
  it('a chart that fetches and renders installs, with SourceAccessible and DryRunRendered True', async () => {
    const ns = await freshNamespace('preflight-ok');
    apply(helmChart(ns, 'fine', { repo: repo.url, chart: 'served', version: '1.0.0' }));
    await chartInstalled(ns, 'fine');
    const chart = await readHelmChart(ns, 'fine');
    expect(conditionOf(chart, 'SourceAccessible')).toMatchObject({ status: 'True', reason: 'ChartFetched' });
    expect(conditionOf(chart, 'DryRunRendered')).toMatchObject({ status: 'True', reason: 'Rendered' });
    const pods = await clients().core.listNamespacedPod({ namespace: ns, labelSelector: 'job-name=helm-install-fine' });
    const init = pods.items[0]?.status?.initContainerStatuses?.find((c) => c.name === 'preflight');
    expect(init?.state?.terminated?.exitCode).toBe(0);
  });

  it('an unreachable repository: SourceAccessible=False/RepositoryUnreachable and its Event; helm upgrade never runs', async () => {
    const ns = await freshNamespace('preflight-unreachable');
    const closed = await freePort();
    const since = Date.now();
    apply(helmChart(ns, 'nowhere', { repo: `https://127.0.0.1:${closed}`, chart: 'served', version: '1.0.0' }));
    const { chart, seconds } = await conditionReason(ns, 'nowhere', 'SourceAccessible', 'RepositoryUnreachable', since);
    report('RepositoryUnreachable', seconds);
    const source = conditionOf(chart, 'SourceAccessible');
    expect(source?.status).toBe('False');
    expect(source?.message).toContain('helm-install-nowhere pre-flight');
    expect(source?.message).toContain(`127.0.0.1:${closed}`);
    expect(source?.message).toContain('nothing was applied');
    expect(conditionOf(chart, 'DryRunRendered')).toMatchObject({ status: 'Unknown', reason: 'SourceInaccessible' });
    // Not an install failure: the install never started.
    expect(conditionOf(chart, 'Installed')).toBeUndefined();
    const event = await warning(ns, 'nowhere', 'RepositoryUnreachable');
    expect(event.message).toContain('is not a valid chart repository or cannot be reached');
    expect(await warnings(ns, 'nowhere', 'HelmChartInstallAttemptFailed')).toHaveLength(0);
    expect(await helmContainerRan(ns, 'nowhere')).toBe(false);
  });

  it('a version the repository does not have: SourceAccessible=False/VersionNotFound', async () => {
    const ns = await freshNamespace('preflight-version');
    const since = Date.now();
    apply(helmChart(ns, 'unreleased', { repo: repo.url, chart: 'served', version: '9.9.9' }));
    const { chart, seconds } = await conditionReason(ns, 'unreleased', 'SourceAccessible', 'VersionNotFound', since);
    report('VersionNotFound', seconds);
    expect(conditionOf(chart, 'SourceAccessible')?.message).toContain('chart "served" version "9.9.9" not found');
    expect((await warning(ns, 'unreleased', 'VersionNotFound')).message).toContain('9.9.9');
    expect(await helmContainerRan(ns, 'unreleased')).toBe(false);
  });

  it('a chart the repository does not have: SourceAccessible=False/ChartNotFound', async () => {
    const ns = await freshNamespace('preflight-chart');
    apply(helmChart(ns, 'absent', { repo: repo.url, chart: 'absent' }));
    const { chart } = await conditionReason(ns, 'absent', 'SourceAccessible', 'ChartNotFound', Date.now());
    expect(conditionOf(chart, 'SourceAccessible')?.message).toContain('chart "absent" not found');
  });

  it('a change that fails to render: DryRunRendered=False/RenderFailed with helm message, the installed release untouched', async () => {
    const ns = await freshNamespace('preflight-render');
    apply(helmChart(ns, 'steady', { chartContent: served.chartContent, set: { greeting: 'first' } }));
    await chartInstalled(ns, 'steady');
    expect(releaseRevisions(ns, 'steady')).toHaveLength(1);

    const since = Date.now();
    apply(
      helmChart(ns, 'steady', {
        chartContent: served.chartContent,
        set: { greeting: 'second', fail: 'widgets need a size' },
      }),
    );
    const { chart, seconds } = await conditionReason(ns, 'steady', 'DryRunRendered', 'RenderFailed', since);
    report('RenderFailed', seconds);
    const rendered = conditionOf(chart, 'DryRunRendered');
    expect(rendered?.status).toBe('False');
    expect(rendered?.message).toContain('widgets need a size');
    expect(rendered?.message).not.toContain('Use --debug');
    expect(conditionOf(chart, 'SourceAccessible')).toMatchObject({ status: 'True', reason: 'ChartFetched' });
    const event = await warning(ns, 'steady', 'RenderFailed');
    expect(event.message).toContain('widgets need a size');
    // Nothing applied: helm upgrade never ran, so the release keeps its one revision and its values.
    expect(await helmContainerRan(ns, 'steady')).toBe(false);
    expect(releaseRevisions(ns, 'steady')).toHaveLength(1);
    expect(await releaseValues(ns, 'steady')).toEqual(expect.objectContaining({ greeting: 'first' }));

    // Fixed: pre-flight passes again and both conditions say so.
    apply(helmChart(ns, 'steady', { chartContent: served.chartContent, set: { greeting: 'third' } }));
    await waitFor(
      'the fixed chart rendered and installed',
      async () => {
        const current = await readHelmChart(ns, 'steady');
        return conditionOf(current, 'DryRunRendered')?.status === 'True' && current?.status?.phase === 'Installed';
      },
      { timeoutMs: 120_000, intervalMs: 300 },
    );
    expect(await releaseValues(ns, 'steady')).toEqual(expect.objectContaining({ greeting: 'third' }));
  });
});

const SKIP = { annotations: { 'helm.k3sm.io/preflight': 'skip' } };

/** The install Job's init containers, once the Job exists (and is not the one of uid `not`). */
async function installJobInit(namespace: string, name: string, not?: string) {
  const job = await waitFor(
    `Job ${namespace}/helm-install-${name}${not === undefined ? '' : ' other than ' + not}`,
    async () => {
      const jobs = await clients().batch.listNamespacedJob({ namespace });
      return jobs.items.find((j) => j.metadata?.name === `helm-install-${name}` && j.metadata.uid !== not);
    },
    { timeoutMs: 120_000, intervalMs: 200 },
  );
  return { uid: job.metadata?.uid ?? '', init: (job.spec?.template.spec?.initContainers ?? []).map((c) => c.name) };
}

/** Waits until every condition named has the reason given; returns the chart. */
async function conditionsReach(namespace: string, name: string, reasons: Record<string, string>) {
  return waitFor(
    `HelmChart ${namespace}/${name} to reach ${JSON.stringify(reasons)}`,
    async () => {
      const chart = await readHelmChart(namespace, name);
      const reached = Object.entries(reasons).every(([type, reason]) => conditionOf(chart, type)?.reason === reason);
      return reached ? chart : undefined;
    },
    { timeoutMs: 120_000, intervalMs: 200 },
  );
}

describe('pre-flight skipped: a HelmChart annotated helm.k3sm.io/preflight: skip', () => {
  it('installs from a Job without the preflight container; SourceAccessible and DryRunRendered say Unknown/Skipped', async () => {
    const ns = await freshNamespace('preflight-skip');
    apply(helmChart(ns, 'unchecked', { chartContent: served.chartContent }, SKIP));
    const chart = await chartInstalled(ns, 'unchecked');
    for (const type of ['SourceAccessible', 'DryRunRendered']) {
      const condition = conditionOf(chart, type);
      expect(condition).toMatchObject({ status: 'Unknown', reason: 'Skipped' });
      expect(condition?.message).toContain('helm-install-unchecked skipped pre-flight');
      expect(condition?.message).toContain('helm.k3sm.io/preflight: skip');
    }
    // No init container at all: a chartContent chart's crds/ are read by the worker from its archive.
    const { init } = await installJobInit(ns, 'unchecked');
    expect(init).toEqual([]);
    const pods = await clients().core.listNamespacedPod({
      namespace: ns,
      labelSelector: 'job-name=helm-install-unchecked',
    });
    expect(pods.items.length).toBeGreaterThan(0);
    expect(pods.items.map((p) => p.status?.initContainerStatuses ?? [])).toEqual(pods.items.map(() => []));
  });

  it('an unreachable repository fails in the crds container, the first to fetch: an install failure, with its log', async () => {
    const ns = await freshNamespace('preflight-skip-unreachable');
    const closed = await freePort();
    apply(helmChart(ns, 'nowhere', { repo: `https://127.0.0.1:${closed}`, chart: 'served', version: '1.0.0' }, SKIP));
    const chart = await conditionsReach(ns, 'nowhere', {
      SourceAccessible: 'Skipped',
      DryRunRendered: 'Skipped',
      Installed: 'InstallAttemptFailed',
    });
    const installed = conditionOf(chart, 'Installed');
    expect(installed?.message).toContain(' -c crds');
    expect(installed?.message).toContain('is not a valid chart repository or cannot be reached');
    expect(await helmContainerRan(ns, 'nowhere')).toBe(false);
  });

  it('adding the annotation to a chart failing pre-flight replaces its Job; helm upgrade then meets the failure; removing it brings pre-flight back', async () => {
    const ns = await freshNamespace('preflight-skip-added');
    const failing = { chartContent: served.chartContent, set: { fail: 'widgets need a size' } };
    apply(helmChart(ns, 'broken', failing));
    await conditionReason(ns, 'broken', 'DryRunRendered', 'RenderFailed', Date.now());
    const checked = await installJobInit(ns, 'broken');
    expect(checked.init).toEqual(['preflight']);
    expect(await helmContainerRan(ns, 'broken')).toBe(false);

    // The same spec, annotated: only the annotation changed, and it alone replaces the Job (it is in the digest).
    apply(helmChart(ns, 'broken', failing, SKIP));
    const unchecked = await installJobInit(ns, 'broken', checked.uid);
    expect(unchecked.init).toEqual([]);
    const chart = await conditionsReach(ns, 'broken', {
      SourceAccessible: 'Skipped',
      DryRunRendered: 'Skipped',
      Installed: 'InstallAttemptFailed',
    });
    // The stale RenderFailed is gone; the same failure is now helm upgrade's, in Installed.
    expect(conditionOf(chart, 'DryRunRendered')?.status).toBe('Unknown');
    expect(conditionOf(chart, 'Installed')?.message).toContain('widgets need a size');
    expect(await helmContainerRan(ns, 'broken')).toBe(true);

    // Fixed, still annotated: it installs without pre-flight.
    apply(helmChart(ns, 'broken', { chartContent: served.chartContent }, SKIP));
    const fixed = await chartInstalled(ns, 'broken');
    expect(conditionOf(fixed, 'DryRunRendered')).toMatchObject({ status: 'Unknown', reason: 'Skipped' });

    // The annotation removed: a new Job runs pre-flight again, and both conditions are True once it installs.
    const before = await installJobInit(ns, 'broken');
    apply(helmChart(ns, 'broken', { chartContent: served.chartContent }));
    expect((await installJobInit(ns, 'broken', before.uid)).init).toEqual(['preflight']);
    const rechecked = await conditionsReach(ns, 'broken', {
      SourceAccessible: 'ChartFetched',
      DryRunRendered: 'Rendered',
      Installed: 'InstallSucceeded',
    });
    expect(conditionOf(rechecked, 'DryRunRendered')?.status).toBe('True');
    // helm upgrade ran again for the new Job: the render failure stored no revision, the two installs did.
    expect(releaseRevisions(ns, 'broken')).toHaveLength(2);
  });
});
