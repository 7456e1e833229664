import { gzipSync } from 'node:zlib';
import pino from 'pino';
import type { ActivityDeps } from '../../activities/deps.js';
import { reportInstalled } from '../../activities/install-attempts.js';
import { preflightModeOf, type PreflightMode } from '../../activities/preflight.js';
import type { ChartTarget } from '../../activities/types.js';
import { buildInstall } from '../../src/build/index.js';
import type { ReleaseRecord } from '../../src/release/record.js';
import { installedStatus } from '../../activities/status-updates.js';
import { helmChart } from './support/charts.js';

const target: ChartTarget = {
  ref: { group: 'helm.k3sm.io', namespace: 'kube-system', name: 'podinfo' },
  uid: '0b8e6a52-5d1c-4f3e-9b7a-2f0c1d9e8a71',
};
const chart = helmChart({ repo: 'https://charts.example.com', chart: 'podinfo', targetNamespace: 'apps' });

const revision = (version: number, status: string): ReleaseRecord => ({
  name: 'podinfo',
  namespace: 'apps',
  version,
  info: { status, last_deployed: `2026-01-0${version}T00:00:00Z` },
  chart: { metadata: { name: 'podinfo', version: '6.7.1', appVersion: '6.7.1' }, values: { replicas: 1 } },
  config: { replicas: 2 },
});

/** A release Secret as the API returns it: base64 (the API's) of helm's base64 of gzipped JSON. */
const stored = (record: ReleaseRecord) => {
  const helm = gzipSync(Buffer.from(JSON.stringify(record))).toString('base64');
  return {
    metadata: {
      labels: { owner: 'helm', name: 'podinfo', version: String(record.version), status: record.info?.status ?? '' },
    },
    data: { release: Buffer.from(helm).toString('base64') },
  };
};

function fakeCluster(releases: ReleaseRecord[]) {
  const seen = {
    statuses: [] as Record<string, unknown>[],
    listed: [] as { namespace: string; labelSelector: string }[],
  };
  const deps = {
    group: 'helm.k3sm.io',
    log: pino({ level: 'silent' }),
    custom: {
      getNamespacedCustomObject: async () => chart,
      patchNamespacedCustomObjectStatus: async ({ body }: { body: { status: Record<string, unknown> } }) => {
        seen.statuses.push(body.status);
      },
    },
    core: {
      listNamespacedSecret: async (req: { namespace: string; labelSelector: string }) => {
        seen.listed.push(req);
        return { items: releases.map(stored) };
      },
    },
  } as unknown as ActivityDeps;
  return { deps, seen };
}

describe('reportInstalled (the success report written as the install Job ends)', () => {
  it('carries the newest stored release in the same status write as the attempt’s report', async () => {
    const { deps, seen } = fakeCluster([revision(1, 'superseded'), revision(2, 'deployed')]);
    const attempt = installedStatus('helm-install-podinfo', 'd2', 3);
    await reportInstalled(deps, target, 'helm-install-podinfo', attempt, 'none');
    expect(seen.listed).toEqual([{ namespace: 'apps', labelSelector: 'owner=helm,name=podinfo' }]);
    expect(seen.statuses).toHaveLength(1);
    expect(seen.statuses[0]).toMatchObject({
      phase: 'Installed',
      digest: 'd2',
      observedGeneration: 3,
      release: { name: 'podinfo', namespace: 'apps', revision: 2, status: 'deployed', chartVersion: '6.7.1' },
    });
    // Values only as a hash: the supplied values never reach the status.
    expect(JSON.stringify(seen.statuses[0])).not.toContain('replicas');
  });

  it('says there is no release when helm stored none', async () => {
    const { deps, seen } = fakeCluster([]);
    await reportInstalled(deps, target, 'helm-install-podinfo', undefined, 'none');
    expect(seen.statuses).toEqual([expect.objectContaining({ release: null })]);
  });

  const conditionsOf = (status: Record<string, unknown> | undefined) =>
    (status?.conditions as { type: string; status: string; reason: string; message: string }[] | undefined) ?? [];
  const preflightConditions = (status: Record<string, unknown> | undefined) =>
    conditionsOf(status).filter((c) => c.type === 'SourceAccessible' || c.type === 'DryRunRendered');

  it.each<[string, PreflightMode, { type: string; status: string; reason: string }[]]>([
    [
      'ran it: both True',
      'runs',
      [
        { type: 'SourceAccessible', status: 'True', reason: 'ChartFetched' },
        { type: 'DryRunRendered', status: 'True', reason: 'Rendered' },
      ],
    ],
    [
      'skipped it: both Unknown, Skipped (nothing answered them)',
      'skipped',
      [
        { type: 'SourceAccessible', status: 'Unknown', reason: 'Skipped' },
        { type: 'DryRunRendered', status: 'Unknown', reason: 'Skipped' },
      ],
    ],
    ['was made before pre-flight existed: none', 'none', []],
  ])("writes pre-flight's conditions for a Job that %s", async (_, mode, expected) => {
    const { deps, seen } = fakeCluster([]);
    await reportInstalled(deps, target, 'helm-install-podinfo', undefined, mode);
    expect(preflightConditions(seen.statuses[0])).toEqual(expected.map((c): unknown => expect.objectContaining(c)));
  });

  it('says a skipped pre-flight was skipped by the annotation, naming it', async () => {
    const { deps, seen } = fakeCluster([]);
    await reportInstalled(deps, target, 'helm-install-podinfo', undefined, 'skipped');
    for (const condition of preflightConditions(seen.statuses[0])) {
      expect(condition.message).toContain('helm-install-podinfo skipped pre-flight');
      expect(condition.message).toContain('helm.k3sm.io/preflight: skip');
    }
  });
});

describe('preflightModeOf (what an install Job does about pre-flight)', () => {
  const jobOf = (chartAnnotations: Record<string, string> | undefined) =>
    buildInstall({ chart: { ...chart, metadata: { ...chart.metadata, annotations: chartAnnotations } } }).job;

  it.each<[string, Record<string, string> | undefined, PreflightMode]>([
    ['runs it without the annotation', undefined, 'runs'],
    ['runs it with another value', { 'helm.k3sm.io/preflight': 'no' }, 'runs'],
    ['skips it with <group>/preflight: skip', { 'helm.k3sm.io/preflight': 'skip' }, 'skipped'],
  ])('%s', (_, annotations, mode) => {
    expect(preflightModeOf(jobOf(annotations), 'helm.k3sm.io')).toBe(mode);
  });

  it('has none for a Job made before pre-flight existed (no init container, no annotation)', () => {
    const job = jobOf(undefined);
    if (job.spec?.template.spec !== undefined) delete job.spec.template.spec.initContainers;
    expect(preflightModeOf(job, 'helm.k3sm.io')).toBe('none');
  });
});
