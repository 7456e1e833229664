import type { HelmChart } from '../../src/api/index.js';
import { attemptsOf } from '../../src/cli/attempts.js';
import { CliError, ExitCode, explain } from '../../src/cli/errors.js';
import {
  chartRow,
  chartTable,
  formatAge,
  lastFailureOf,
  statusText,
  table,
  temporalUiLink,
} from '../../src/cli/format.js';

const now = Date.parse('2026-03-01T12:00:00Z');

const chart = (status: HelmChart['status'], version?: string): HelmChart => ({
  apiVersion: 'helm.k3sm.io/v1',
  kind: 'HelmChart',
  metadata: {
    name: 'web',
    namespace: 'apps',
    uid: 'u1',
    creationTimestamp: '2026-03-01T11:00:00Z',
  } as HelmChart['metadata'],
  spec: { chart: 'web', ...(version === undefined ? {} : { version }) },
  ...(status === undefined ? {} : { status }),
});

describe('formatAge', () => {
  it.each<[string, string]>([
    ['2026-03-01T11:59:15Z', '45s'],
    ['2026-03-01T11:58:00Z', '2m'],
    ['2026-03-01T10:00:00Z', '2h'],
    ['2026-02-27T12:00:00Z', '2d'],
    ['2026-03-01T12:00:05Z', '0s'],
  ])('%s → %s', (since, age) => {
    expect(formatAge(since, now)).toBe(age);
  });

  it('says unknown without a time', () => {
    expect(formatAge(undefined, now)).toBe('<unknown>');
  });
});

describe('table', () => {
  it('pads every column but the last', () => {
    expect(table(['A', 'LONG'], [['wide cell', 'x']])).toBe('A           LONG\nwide cell   x');
  });
});

describe('temporalUiLink', () => {
  it('encodes the workflow id (it holds slashes) and drops a trailing slash of the base', () => {
    expect(temporalUiLink('http://ui:8233/', 'default', 'helmchart/helm.k3sm.io/apps/web')).toBe(
      'http://ui:8233/namespaces/default/workflows/helmchart%2Fhelm.k3sm.io%2Fapps%2Fweb',
    );
  });
});

describe('chartRow and chartTable', () => {
  const failed = chart({
    phase: 'Failed',
    conditions: [
      { type: 'Failed', status: 'True', reason: 'BackoffLimitExceeded', message: 'Error: render failed\nmore' },
    ],
  });
  const installed = chart(
    {
      phase: 'Installed',
      release: { revision: 3, status: 'deployed', chartVersion: '1.2.3' },
      conditions: [{ type: 'Failed', status: 'False', reason: 'InstallSucceeded', message: 'ok' }],
    },
    '1.0.0',
  );

  it('takes the chart version from the release, else the spec', () => {
    expect(chartRow(installed, now, 'ui', false)).toMatchObject({
      revision: 3,
      releaseStatus: 'deployed',
      chartVersion: '1.2.3',
      age: '60m',
    });
    expect(chartRow(chart(undefined, '0.9.0'), now, 'ui', false)).toMatchObject({
      phase: 'Pending',
      chartVersion: '0.9.0',
      revision: undefined,
    });
  });

  it('names the last failure by reason and the first line of its message, only while Failed is True', () => {
    expect(lastFailureOf(failed)).toBe('BackoffLimitExceeded: Error: render failed');
    expect(lastFailureOf(installed)).toBeUndefined();
  });

  it('prints a namespace column only for -A, dashes for what is unknown, and marks a suspended chart', () => {
    const rows = [chartRow(installed, now, 'link-1', true), chartRow(failed, now, 'link-2', false)];
    expect(chartTable(rows, false).split('\n')).toEqual([
      'NAME   PHASE                   REVISION   RELEASE    CHART VERSION   AGE   LAST FAILURE                                 TEMPORAL UI',
      'web    Installed (suspended)   3          deployed   1.2.3           60m   -                                            link-1',
      'web    Failed                  -          -          -               60m   BackoffLimitExceeded: Error: render failed   link-2',
    ]);
    expect(chartTable(rows, true).startsWith('NAMESPACE   NAME')).toBe(true);
  });

  it('status text names the release, its hash and the UI link, or says what is missing', () => {
    const text = statusText('apps/web', undefined, installed, 'link');
    expect(text).toContain('(no workflow yet: the controller has not started one)');
    expect(text).toContain('release:      revision 3 deployed, chart 1.2.3, deployed ?');
    expect(text).toContain('Temporal UI:  link');
    expect(statusText('apps/web', undefined, chart(undefined), 'link')).toContain('release:      none recorded');
  });
});

describe('explain (one line and an exit code for anything a command threw)', () => {
  const named = (name: string, message: string, extra: Record<string, unknown> = {}) =>
    Object.assign(Object.assign(new Error(message), { name }), extra);
  it.each<[string, unknown, number, RegExp]>([
    ['a CliError as it is', new CliError('say this', ExitCode.usage), 2, /^say this$/u],
    [
      'a workflow not started',
      named('WorkflowNotFoundError', 'Workflow not found'),
      3,
      /^no workflow for apps\/web yet: .*helmflow get/u,
    ],
    [
      'Temporal unreachable',
      named('ServiceError', 'Failed to signal workflow\ncaused by'),
      4,
      /^cannot reach Temporal: Failed to signal workflow — check --temporal-address/u,
    ],
    [
      'a Kubernetes 404',
      Object.assign(new Error('HTTP-Code: 404'), { code: 404, body: '{"message":"helmcharts \\"web\\" not found"}' }),
      3,
      /^not found for apps\/web: helmcharts "web" not found$/u,
    ],
    [
      'a Kubernetes 403',
      Object.assign(new Error('HTTP-Code: 403'), { code: 403, body: '{"message":"forbidden"}' }),
      1,
      /refused .*check --kubeconfig and your RBAC/u,
    ],
    [
      'a refused connection',
      Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:6443'), { code: 'ECONNREFUSED' }),
      4,
      /^cannot reach the server: connect ECONNREFUSED/u,
    ],
    ['anything else, first line only', new Error('boom\n    at x (y.js:1:1)'), 1, /^boom$/u],
  ])('%s', (_what, err, exitCode, message) => {
    const explained = explain(err, 'apps/web');
    expect(explained.exitCode).toBe(exitCode);
    expect(explained.message).toMatch(message);
    expect(explained.message).not.toContain('\n');
  });
});

describe('attemptsOf (chart history, from the summaries the workflow writes)', () => {
  const at = (n: number) => `2026-03-01T12:00:0${n}.000Z`;
  const prepare = (attempt: number) =>
    `Validate HelmChart apps/web, then create its ServiceAccount, binding, values and Job helm-install-web (attempt ${attempt})`;
  it('reads success, failure with its reason, cancel, supersession and a running attempt', () => {
    expect(
      attemptsOf([
        { time: at(1), summary: prepare(1) },
        { time: at(2), summary: 'Status of HelmChart apps/web: Installing, JobCreated=True (JobCreated)' },
        { time: at(3), summary: 'Status of HelmChart apps/web: Installed, Failed=False (InstallSucceeded)' },
        { time: at(4), summary: prepare(2) },
        { time: at(5), summary: 'Record HelmChartInstallFailed for helm-install-web (BackoffLimitExceeded)' },
        { time: at(6), summary: prepare(3) },
        { time: at(7), summary: prepare(4) },
        { time: at(8), summary: 'Delete Job helm-install-web: the workflow was cancelled' },
        { time: at(9), summary: prepare(5) },
      ]),
    ).toEqual([
      { attempt: 1, started: at(1), outcome: 'succeeded' },
      { attempt: 2, started: at(4), outcome: 'failed', reason: 'BackoffLimitExceeded' },
      { attempt: 3, started: at(6), outcome: 'superseded' },
      { attempt: 4, started: at(7), outcome: 'cancelled' },
      { attempt: 5, started: at(9), outcome: 'running' },
    ]);
  });

  it('reads a lean run’s success from its install wait’s result (no status step says it)', () => {
    const wait = 'Wait for helm-install-web: helm upgrade --install web';
    expect(
      attemptsOf([
        { time: at(1), summary: prepare(1) },
        { time: at(2), summary: wait },
        { time: at(3), summary: prepare(2) },
        { time: at(4), summary: wait },
        { time: at(5), summary: wait, installSucceeded: true },
      ]),
    ).toEqual([
      { attempt: 1, started: at(1), outcome: 'superseded' },
      { attempt: 2, started: at(3), outcome: 'succeeded' },
    ]);
  });

  it('reads a refusal from the Failed status, and the four-step prepare of older runs', () => {
    expect(
      attemptsOf([
        { time: at(1), summary: 'Create Job helm-install-web in apps (attempt 1)' },
        { time: at(2), summary: 'Status of HelmChart apps/web: Failed, Failed=True (InsecureRepo)' },
      ]),
    ).toEqual([{ attempt: 1, started: at(1), outcome: 'failed', reason: 'InsecureRepo' }]);
  });
});
