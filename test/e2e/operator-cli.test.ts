import { parse } from 'yaml';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { repoRoot } from '../../src/config/pins.js';
import { waitFor } from '../../src/lib/wait.js';
import { chartWorkflowId } from '../../workflows/contract.js';
import { buildChart } from './support/charts.js';
import { useHelmflow } from './support/helmflow.js';
import { apply, chartFailed, chartInstalled, helmChart, readHelmChart } from './support/helmcharts.js';
import { clients, freshNamespace } from './support/kube.js';
import { chartWorkflowStatus } from './support/observe.js';
import { helmflowCli } from './support/operator-cli.js';
import { testLayout } from './support/stack.js';

const helmflow = useHelmflow();
const chart = buildChart({ name: 'operated', version: '2.0.1' });

const uiLink = (ns: string, name: string) =>
  `${testLayout().temporalUiUrl}/namespaces/default/workflows/${encodeURIComponent(chartWorkflowId({ group: 'helm.k3sm.io', namespace: ns, name }))}`;

async function revisionOf(ns: string, name: string): Promise<number | undefined> {
  return (await readHelmChart(ns, name))?.status?.release?.revision;
}

async function untilRevision(ns: string, name: string, revision: number): Promise<void> {
  await waitFor(
    `${ns}/${name} at release revision ${revision}`,
    async () => (await revisionOf(ns, name)) === revision,
    {
      timeoutMs: 120_000,
      intervalMs: 300,
    },
  );
}

async function eventReasons(ns: string, name: string): Promise<string[]> {
  const list = await clients().core.listNamespacedEvent({ namespace: ns });
  return list.items.filter((e) => e.involvedObject.name === name).map((e) => e.reason ?? '');
}

/** One line on stderr, prefixed, and no stack trace. */
function oneLineError(stderr: string): string {
  const lines = stderr.trim().split('\n');
  expect(lines).toHaveLength(1);
  expect(stderr).not.toMatch(/^\s+at /mu);
  return lines[0] ?? '';
}

describe('the operator CLI against real charts', () => {
  it('`get` lists every chart with phase, release, chart version, age, last failure and its Temporal UI link', async () => {
    const ns = await freshNamespace('get');
    apply(helmChart(ns, 'good', { chartContent: chart.chartContent }));
    apply(
      helmChart(ns, 'bad', {
        chartContent: chart.chartContent,
        failurePolicy: 'abort',
        backOffLimit: 0,
        set: { fail: 'broken on purpose' },
      }),
    );
    await chartInstalled(ns, 'good');
    await untilRevision(ns, 'good', 1);
    await chartFailed(ns, 'bad');

    const table = helmflowCli(['get', '-n', ns]);
    expect(table.status).toBe(0);
    const lines = table.stdout.trim().split('\n');
    expect(lines[0]).toMatch(/^NAME\s+PHASE\s+REVISION\s+RELEASE\s+CHART VERSION\s+AGE\s+LAST FAILURE\s+TEMPORAL UI$/u);
    const bad = lines.find((l) => l.startsWith('bad ')) ?? '';
    const good = lines.find((l) => l.startsWith('good ')) ?? '';
    expect(good).toMatch(/^good\s+Installed\s+1\s+deployed\s+2\.0\.1\s+\d+[smhd]\s+-\s+/u);
    expect(good.endsWith(uiLink(ns, 'good'))).toBe(true);
    expect(bad).toMatch(/^bad\s+Failed\s+/u);
    expect(bad).toContain('BackoffLimitExceeded');

    const all = helmflowCli(['get', '-A']);
    expect(all.status).toBe(0);
    expect(all.stdout.split('\n')[0]).toMatch(/^NAMESPACE\s+NAME\s+PHASE/u);
    expect(all.stdout).toMatch(new RegExp(`^${ns}\\s+good\\s+Installed`, 'mu'));

    const json = JSON.parse(helmflowCli(['get', '-n', ns, '-o', 'json']).stdout) as Record<string, unknown>[];
    const goodJson = json.find((r) => r.name === 'good');
    expect(goodJson?.lastFailure).toBeUndefined();
    expect(goodJson).toMatchObject({
      namespace: ns,
      phase: 'Installed',
      revision: 1,
      releaseStatus: 'deployed',
      chartVersion: '2.0.1',
      temporalUi: uiLink(ns, 'good'),
    });
    const yaml = parse(helmflowCli(['get', '-n', ns, '-o', 'yaml']).stdout) as Record<string, unknown>[];
    expect(yaml.map((r) => r.name)).toEqual(['bad', 'good']);

    const wrong = helmflowCli(['get', '-o', 'xml']);
    expect(wrong.status).toBe(2);
    expect(oneLineError(wrong.stderr)).toBe('helmflow: -o must be one of table, json, yaml, not xml');
    // A setting's value is checked as it is read, for the operator commands and the processes alike.
    const group = helmflowCli(['get', '--group', 'helm.example.com']);
    expect(group.status).toBe(2);
    expect(oneLineError(group.stderr)).toBe(
      "helmflow: option '--group <group>' argument 'helm.example.com' is invalid. Expected helm.k3sm.io or helm.cattle.io.",
    );
    const slots = helmflowCli(['run', '--max-running-jobs', '0'], { connection: false });
    expect(slots.status).toBe(2);
    expect(oneLineError(slots.stderr)).toBe(
      "helmflow: option '--max-running-jobs <n>' argument '0' is invalid. Expected a whole number of at least 1.",
    );
  });

  it('`chart status` reads as a summary (or JSON), `chart logs` shows the Job log, `chart history` both histories', async () => {
    const ns = await freshNamespace('inspect');
    apply(helmChart(ns, 'web', { chartContent: chart.chartContent }));
    await chartInstalled(ns, 'web');
    await untilRevision(ns, 'web', 1);

    const text = helmflowCli(['chart', 'status', `${ns}/web`]);
    expect(text.status).toBe(0);
    expect(text.stdout).toContain(`HelmChart ${ns}/web`);
    expect(text.stdout).toMatch(/phase:\s+Installed/u);
    expect(text.stdout).toMatch(/release:\s+web revision 1 deployed, chart operated 2\.0\.1/u);
    expect(text.stdout).toContain(`Temporal UI:  ${uiLink(ns, 'web')}`);
    const json = JSON.parse(helmflowCli(['chart', 'status', `${ns}/web`, '-o', 'json']).stdout) as {
      workflow: { phase: string; attempt: number };
      release: { revision: number };
      temporalUi: string;
    };
    expect(json).toMatchObject({ workflow: { phase: 'Installed', attempt: 1 }, release: { revision: 1 } });

    const logs = helmflowCli(['chart', 'logs', `${ns}/web`]);
    expect(logs.status).toBe(0);
    expect(logs.stdout).toContain('STATUS: deployed');
    // --follow on a finished pod prints the log and ends.
    const followed = helmflowCli(['chart', 'logs', `${ns}/web`, '--follow']);
    expect(followed.status).toBe(0);
    expect(followed.stdout).toContain('STATUS: deployed');

    const reconcile = helmflowCli(['chart', 'reconcile', `${ns}/web`]);
    expect(reconcile).toMatchObject({ status: 0, stdout: `reconcile requested for ${ns}/web\n` });
    await untilRevision(ns, 'web', 2);
    await chartInstalled(ns, 'web');

    const history = helmflowCli(['chart', 'history', `${ns}/web`]);
    expect(history.status).toBe(0);
    expect(history.stdout).toMatch(/^1\s+\S+\s+succeeded\s+-$/mu);
    expect(history.stdout).toMatch(/^2\s+\S+\s+succeeded\s+-$/mu);
    expect(history.stdout).toMatch(/^1\s+\S+\s+superseded\s+operated-2\.0\.1/mu);
    expect(history.stdout).toMatch(/^2\s+\S+\s+deployed\s+operated-2\.0\.1/mu);
    const historyJson = JSON.parse(helmflowCli(['chart', 'history', `${ns}/web`, '-o', 'json']).stdout) as {
      attempts: { attempt: number; outcome: string }[];
      releases: { revision: number; status: string }[];
    };
    expect(historyJson.attempts.map((a) => [a.attempt, a.outcome])).toEqual([
      [1, 'succeeded'],
      [2, 'succeeded'],
    ]);
    expect(historyJson.releases.map((r) => [r.revision, r.status])).toEqual([
      [2, 'deployed'],
      [1, 'superseded'],
    ]);
  });

  it('`chart suspend` holds the chart through a spec change and a reconcile; `chart resume` installs the change', async () => {
    const ns = await freshNamespace('suspend');
    apply(helmChart(ns, 'held', { chartContent: chart.chartContent, set: { greeting: 'one' } }));
    await chartInstalled(ns, 'held');
    await untilRevision(ns, 'held', 1);

    expect(helmflowCli(['chart', 'suspend', `${ns}/held`]).status).toBe(0);
    await waitFor('the chart to say Suspended', async () => {
      const held = await readHelmChart(ns, 'held');
      return held?.status?.conditions?.some((c) => c.type === 'Suspended' && c.status === 'True') === true;
    });
    const before = await chartWorkflowStatus(helmflow.settings, ns, 'held');

    apply(helmChart(ns, 'held', { chartContent: chart.chartContent, set: { greeting: 'two' } }));
    await waitFor('the workflow to hold the new spec without installing it', async () => {
      const s = await chartWorkflowStatus(helmflow.settings, ns, 'held');
      return s.desiredDigest !== before.desiredDigest && s.phase === 'Suspended';
    });
    expect(helmflowCli(['chart', 'reconcile', `${ns}/held`]).status).toBe(0);
    await waitFor('the reconcile to be handled', async () =>
      (await eventReasons(ns, 'held')).includes('HelmChartRetry'),
    );
    const during = await chartWorkflowStatus(helmflow.settings, ns, 'held');
    // The reconcile was accepted (a retry forgets the installed digest, so the install reruns once resumed) but
    // ran nothing: the same attempt, the same release revision.
    expect(during).toMatchObject({ phase: 'Suspended', attempt: before.attempt });
    expect(await revisionOf(ns, 'held')).toBe(1);
    expect((await readHelmChart(ns, 'held'))?.status?.phase).toBe('Suspended');

    const events = helmflowCli(['chart', 'events', `${ns}/held`]);
    expect(events.status).toBe(0);
    expect(events.stdout.split('\n')[0]).toMatch(/^LAST SEEN\s+TYPE\s+REASON\s+COUNT\s+MESSAGE$/u);
    expect(events.stdout).toMatch(/Normal\s+HelmChartSuspended\s+1\s+annotated helm\.k3sm\.io\/suspend/u);
    expect(events.stdout).toMatch(/Normal\s+HelmChartRetry\s+1\s+retry requested by cli:\S+ \(reconcile\)/u);

    expect(helmflowCli(['chart', 'resume', `${ns}/held`]).status).toBe(0);
    await untilRevision(ns, 'held', 2);
    const resumed = await chartInstalled(ns, 'held');
    expect(resumed.metadata.annotations?.['helm.k3sm.io/suspend']).toBeUndefined();
    expect(resumed.status?.conditions?.find((c) => c.type === 'Suspended')).toMatchObject({
      status: 'False',
      reason: 'Resumed',
    });
  });

  it('errors are one line that says what to do, with documented exit codes; --version prints the version', async () => {
    const ns = await freshNamespace('errors');
    const cancel = helmflowCli(['chart', 'cancel', `${ns}/never-created`]);
    expect(cancel.status).toBe(3);
    expect(oneLineError(cancel.stderr)).toMatch(/^helmflow: no workflow for .*never-created yet: .*controller/u);
    expect(cancel.stderr).not.toContain('WorkflowNotFoundError');

    const status = helmflowCli(['chart', 'status', `${ns}/never-created`]);
    expect(status.status).toBe(3);
    expect(oneLineError(status.stderr)).toContain('helmflow get -A');

    const usage = helmflowCli(['chart', 'retry', 'no-slash']);
    expect(usage.status).toBe(2);
    expect(oneLineError(usage.stderr)).toBe('helmflow: name the chart as <namespace>/<name>, not no-slash');

    // Refused as it is parsed, before any call: an empty value was once read as revision 0.
    for (const value of ['', 'two', '-1']) {
      const revision = helmflowCli(['chart', 'check', `${ns}/x`, '--min-revision', value]);
      expect({ value, status: revision.status, stderr: oneLineError(revision.stderr) }).toEqual({
        value,
        status: 2,
        stderr: `helmflow: option '--min-revision <n>' argument '${value}' is invalid. Expected a whole number of at least 0.`,
      });
    }

    const unreachable = helmflowCli(['chart', 'retry', `${ns}/x`], { temporalAddress: '127.0.0.1:1' });
    expect(unreachable.status).toBe(4);
    expect(oneLineError(unreachable.stderr)).toMatch(/^helmflow: cannot reach Temporal: .* check --temporal-address/u);

    const version = helmflowCli(['--version'], { connection: false });
    const pkg = JSON.parse(readFileSync(path.join(repoRoot, 'package.json'), 'utf8')) as { version: string };
    expect(version).toMatchObject({ status: 0, stdout: `${pkg.version}\n` });
  });
});
