import { gzipSync } from 'node:zlib';
import pino from 'pino';
import type { ActivityDeps } from '../../activities/deps.js';
import { reportInstalled } from '../../activities/install-attempts.js';
import type { ChartTarget } from '../../activities/types.js';
import type { ReleaseRecord } from '../../src/release/record.js';
import { installedStatus } from '../../workflows/status-updates.js';
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
    await reportInstalled(deps, target, 'helm-install-podinfo', attempt, false);
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
    await reportInstalled(deps, target, 'helm-install-podinfo', undefined, false);
    expect(seen.statuses).toEqual([expect.objectContaining({ release: null })]);
  });
});
