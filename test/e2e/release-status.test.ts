import { createHash } from 'node:crypto';
import { canonicalJson } from '../../src/build/canonical-json.js';
import { waitFor } from '../../src/lib/wait.js';
import type { HelmChart } from '../../src/api/index.js';
import { buildChart } from './support/charts.js';
import { startController, useHelmflow } from './support/helmflow.js';
import { apply, chartInstalled, helm, helmChart, readHelmChart } from './support/helmcharts.js';
import { freshNamespace, kubectl } from './support/kube.js';
import { helmflowCli } from './support/operator-cli.js';

// A resync sweep every 2 seconds instead of every 5 minutes, so the sweep's comparison of each chart's stored
// release is seen within the test.
const helmflow = useHelmflow({ resyncSeconds: 2 });

const chart = buildChart({
  name: 'released',
  version: '1.4.2',
  appVersion: '9.9.1',
  values: { greeting: 'hi', nested: { a: 1 } },
});
const CANARY = 'release-status-canary-7d1f';

/** sha256 of the canonical JSON of `helm get values --all`: the hash a CI pipeline computes from helm itself. */
function helmValuesHash(namespace: string, release: string): string {
  const result = helm(['get', 'values', release, '-n', namespace, '--all', '-o', 'json']);
  expect(result.status).toBe(0);
  return createHash('sha256')
    .update(canonicalJson(JSON.parse(result.stdout)))
    .digest('hex');
}

async function releaseAt(
  namespace: string,
  name: string,
  accept: (r: NonNullable<NonNullable<HelmChart['status']>['release']>) => boolean,
) {
  return waitFor(
    `HelmChart ${namespace}/${name} status.release to match`,
    async () => {
      const status = (await readHelmChart(namespace, name))?.status;
      const release = status?.release;
      if (release !== undefined && accept(release)) return release;
      // Thrown, not returned: a timeout then says what the status held instead.
      const held = release === undefined ? 'no release' : `revision ${String(release.revision)} ${release.status}`;
      throw new Error(`status.release holds ${held}, phase ${status?.phase ?? 'none'}`);
    },
    { timeoutMs: 120_000, intervalMs: 300 },
  );
}

/** A chart `moved` installed and upgraded once (release revision 2) in a fresh namespace, for a rollback by hand. */
async function movedAtRevision2(prefix: string): Promise<string> {
  const ns = await freshNamespace(prefix);
  apply(helmChart(ns, 'moved', { chartContent: chart.chartContent, set: { greeting: 'one' } }));
  await chartInstalled(ns, 'moved');
  apply(helmChart(ns, 'moved', { chartContent: chart.chartContent, set: { greeting: 'two' } }));
  await releaseAt(ns, 'moved', (r) => r.revision === 2);
  return ns;
}

describe('the release as it is, in the HelmChart status', () => {
  it('records revision, status, chart, versions, time and a values hash (never the values) after each install', async () => {
    const ns = await freshNamespace('release');
    const spec = {
      chartContent: chart.chartContent,
      valuesContent: `password: ${CANARY}\n`,
      set: { greeting: 'hello' },
    };
    apply(helmChart(ns, 'web', spec));
    await chartInstalled(ns, 'web');
    const first = await releaseAt(ns, 'web', (r) => r.revision === 1);
    expect(first).toEqual({
      name: 'web',
      namespace: ns,
      revision: 1,
      status: 'deployed',
      chart: 'released',
      chartVersion: '1.4.2',
      appVersion: '9.9.1',
      lastDeployed: expect.stringMatching(/^\d{4}-\d\d-\d\dT/u) as unknown,
      valuesHash: helmValuesHash(ns, 'web'),
    });
    const stored = await readHelmChart(ns, 'web');
    expect(JSON.stringify(stored?.status)).not.toContain(CANARY);

    // kubectl's default columns show the release's revision and status.
    const table = kubectl(['get', 'helmcharts.helm.k3sm.io', '-n', ns]);
    expect(table.status).toBe(0);
    const [header = '', row = ''] = table.stdout.trim().split('\n');
    expect(header.split(/\s+/u)).toEqual(expect.arrayContaining(['REVISION', 'RELEASE', 'JOB']));
    expect(row.split(/\s+/u)).toEqual(expect.arrayContaining(['web', '1', 'deployed', 'helm-install-web']));

    // An upgrade with other values: a new revision and another hash, still helm's own.
    apply(helmChart(ns, 'web', { ...spec, set: { greeting: 'hey' } }));
    const second = await releaseAt(ns, 'web', (r) => r.revision === 2);
    expect(second.status).toBe('deployed');
    expect(second.valuesHash).toBe(helmValuesHash(ns, 'web'));
    expect(second.valuesHash).not.toBe(first.valuesHash);
  });

  it('`helmflow chart check` passes on the release as it is and names the first assertion that fails', async () => {
    const ns = await freshNamespace('check');
    apply(helmChart(ns, 'api', { chartContent: chart.chartContent }));
    await chartInstalled(ns, 'api');
    const release = await releaseAt(ns, 'api', (r) => r.revision === 1);
    const hash = release.valuesHash ?? '';

    const ok = helmflowCli([
      'chart',
      'check',
      `${ns}/api`,
      '--status',
      'deployed',
      '--min-revision',
      '1',
      '--values-hash',
      hash,
    ]);
    expect(ok).toMatchObject({ status: 0 });
    expect(ok.stdout).toContain(`ok: ${ns}/api: release revision 1 is deployed`);

    const cases: [string[], string][] = [
      [['--status', 'failed'], 'check status failed'],
      [['--min-revision', '2'], 'check revision failed'],
      [['--values-hash', 'not-the-hash'], 'check values-hash failed'],
      [['--status', 'failed', '--min-revision', '9'], 'check status failed'],
    ];
    for (const [flags, message] of cases) {
      const failed = helmflowCli(['chart', 'check', `${ns}/api`, ...flags]);
      expect({ flags, status: failed.status, stderr: failed.stderr.trim() }).toEqual({
        flags,
        status: 1,
        stderr: expect.stringContaining(message) as unknown,
      });
      expect(failed.stderr.trim().split('\n')).toHaveLength(1);
    }
    const missing = helmflowCli(['chart', 'check', `${ns}/absent`, '--status', 'deployed']);
    expect(missing.status).toBe(3);
    expect(missing.stderr).toMatch(/^helmflow: HelmChart .*absent.* not found/u);
  });

  it('a release moved behind helmflow (helm rollback by hand) reaches the status at the next resync', async () => {
    const ns = await movedAtRevision2('drift');

    expect(helm(['rollback', 'moved', '1', '-n', ns]).status).toBe(0);
    const release = await releaseAt(ns, 'moved', (r) => r.revision === 3);
    expect(release.status).toBe('deployed');
    expect(release.valuesHash).toBe(helmValuesHash(ns, 'moved'));
  });

  // Last: it stops the controller this file started.
  it('a release moved while no controller ran reaches the status when a controller starts', async () => {
    const ns = await movedAtRevision2('restart');

    await helmflow.stopController();
    expect(helm(['rollback', 'moved', '1', '-n', ns]).status).toBe(0);
    // No sweep within the test: the comparison a controller makes when it first sees each chart brings it.
    const said: string[] = [];
    const controller = startController(
      { ...helmflow.settings, resyncSeconds: 300 },
      { onLine: (entry) => (entry.chart === `${ns}/moved` ? said.push(entry.msg ?? '') : undefined) },
    );
    try {
      // A timeout also says what the new controller logged about the chart: whether it signalled the move.
      const release = await releaseAt(ns, 'moved', (r) => r.revision === 3).catch(async (err: unknown) => {
        const lines = said.length === 0 ? 'nothing' : said.join('; ');
        const conditions = ((await readHelmChart(ns, 'moved'))?.status?.conditions ?? []).map(
          (c) => `${c.type}=${c.status} ${c.reason ?? ''} at ${c.lastTransitionTime ?? '?'}`,
        );
        throw new Error(
          `${(err as Error).message}; the new controller logged about it: ${lines}; ` +
            `conditions: ${conditions.join(', ')}`,
        );
      });
      expect(release.status).toBe('deployed');
      expect(release.valuesHash).toBe(helmValuesHash(ns, 'moved'));
    } finally {
      await controller.stop();
    }
  });
});
