// Issue 11, point 4: a release left pending-upgrade by a helm killed mid-upgrade is unlocked before the next
// attempt runs, with an Event saying so; without it, helm refuses every later pod ("another operation … is in
// progress") and the chart never installs again.
import { spawnSync } from 'node:child_process';
import { waitFor } from '../../src/lib/wait.js';
import { buildChart } from './support/charts.js';
import { useHelmflow } from './support/helmflow.js';
import { apply, chartInstalled, helm, helmChart } from './support/helmcharts.js';
import { eventsOf, freshNamespace } from './support/kube.js';
import { ChartEventReason } from '../../src/api/event-reasons.js';

useHelmflow();

// With hang: true the chart has a Deployment whose pod nothing runs (the native node runs only helm Job pods), so
// `helm upgrade --wait` holds the release pending-upgrade until its timeout: a helm to kill mid-upgrade.
const chart = buildChart({
  name: 'lockable',
  values: { hang: false },
  templates: {
    'hang.yaml': `{{- if .Values.hang }}
apiVersion: apps/v1
kind: Deployment
metadata:
  name: {{ .Release.Name }}-hang
spec:
  replicas: 1
  selector:
    matchLabels: { app: hang }
  template:
    metadata:
      labels: { app: hang }
    spec:
      containers:
        - name: never
          image: never-runs
          command: [never-runs]
{{- end }}
`,
  },
});

function releaseStatuses(namespace: string, release: string): Record<number, string> {
  const result = helm(['history', release, '-n', namespace, '-o', 'json']);
  expect(result.status).toBe(0);
  const rows = JSON.parse(result.stdout) as { revision: number; status: string }[];
  return Object.fromEntries(rows.map((r) => [r.revision, r.status]));
}

describe('a release left pending by a helm that died', () => {
  it('is unlocked before the next attempt, with an Event, and the chart installs again', async () => {
    const ns = await freshNamespace('unlock');
    const spec = (hang: boolean) => ({ chartContent: chart.chartContent, valuesContent: `hang: ${hang}\n` });
    apply(helmChart(ns, 'web', spec(false)));
    await chartInstalled(ns, 'web');

    apply(helmChart(ns, 'web', spec(true)));
    await waitFor(
      'the upgrade to hold the release pending-upgrade',
      () => releaseStatuses(ns, 'web')[2] === 'pending-upgrade',
      { timeoutMs: 60_000, intervalMs: 300 },
    );
    // kill -9 of that helm on the native node: it leaves the release pending-upgrade, as a crash would.
    const pattern = `^helm upgrade --install web .*--namespace ${ns} `;
    const pids = await waitFor(
      'the helm upgrade process',
      () => {
        const found = spawnSync('pgrep', ['-f', pattern], { encoding: 'utf8' }).stdout.trim();
        return found === '' ? undefined : found.split('\n');
      },
      { timeoutMs: 20_000, intervalMs: 200 },
    );
    expect(spawnSync('kill', ['-9', ...pids]).status).toBe(0);
    expect(releaseStatuses(ns, 'web')[2]).toBe('pending-upgrade');

    // The next spec: its Job's first pod is refused by the lock, which is then released; the Job's next pod runs.
    apply(helmChart(ns, 'web', spec(false)));
    const unlocked = await waitFor(
      `a ${ChartEventReason.ReleaseUnlocked} Event`,
      async () => {
        const found = await eventsOf(ns, 'web', ChartEventReason.ReleaseUnlocked);
        return found.length > 0 ? found : undefined;
      },
      { timeoutMs: 120_000, intervalMs: 500 },
    );
    expect(unlocked[0]?.type).toBe('Warning');
    expect(unlocked[0]?.message).toContain('release web (revision 2) was pending-upgrade');
    // The lock was really met: a pod of the install Job was refused with helm's message (its Warning is written by
    // the same report, just after the unlock, so it is waited for).
    await waitFor(
      "the install Job's refusal in a HelmChartInstallAttemptFailed Event",
      async () =>
        (await eventsOf(ns, 'web', 'HelmChartInstallAttemptFailed'))
          .map((e) => e.message ?? '')
          .join('\n')
          .includes('another operation (install/upgrade/rollback) is in progress'),
      { timeoutMs: 30_000, intervalMs: 500 },
    );

    await waitFor(
      'revision 3 deployed',
      async () => {
        await chartInstalled(ns, 'web');
        return releaseStatuses(ns, 'web')[3] === 'deployed' || undefined;
      },
      { timeoutMs: 120_000, intervalMs: 1_000 },
    );
    expect(releaseStatuses(ns, 'web')).toMatchObject({ 1: 'superseded', 2: 'failed', 3: 'deployed' });
    expect(helm(['get', 'values', 'web', '-n', ns, '-o', 'json']).stdout).toContain('"hang":false');
  });
});
