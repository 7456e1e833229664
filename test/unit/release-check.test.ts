import type { HelmChart } from '../../src/api/index.js';
import { movedRelease } from '../../src/controller/release-check.js';
import type { StoredRelease } from '../../src/controller/release-drift.js';

const chartWith = (status?: HelmChart['status']): HelmChart =>
  ({
    apiVersion: 'helm.k3sm.io/v1',
    kind: 'HelmChart',
    metadata: { name: 'web', namespace: 'apps' },
    spec: { chart: 'web' },
    ...(status === undefined ? {} : { status }),
  }) as HelmChart;

const installed = (revision: number, status = 'deployed'): HelmChart =>
  chartWith({ phase: 'Installed', release: { revision, status } });

/**
 * Sources whose chart is `before` until the stored release has been read, then `after`: a chart whose install
 * ended while the controller waited for the read.
 */
function sources(stored: StoredRelease | undefined, before: HelmChart | undefined, after: HelmChart | undefined) {
  let read = false;
  return {
    stored: () => {
      read = true;
      return Promise.resolve(stored);
    },
    chart: () => (read ? after : before),
  };
}

describe('movedRelease (the controller signals a re-read only when the stored release left the status)', () => {
  it.each<[string, StoredRelease | undefined, HelmChart | undefined, HelmChart | undefined, boolean]>([
    [
      'installed while its release was read: its status has the revision',
      { revision: 1, status: 'deployed' },
      chartWith(),
      installed(1),
      false,
    ],
    [
      'a revision the status does not have (a rollback by hand)',
      { revision: 2, status: 'deployed' },
      installed(1),
      installed(1),
      true,
    ],
    ['the same revision and status', { revision: 1, status: 'deployed' }, installed(1), installed(1), false],
    ['uninstalled behind helmflow', undefined, installed(1), installed(1), true],
    ['deleted while its release was read', { revision: 1, status: 'deployed' }, installed(1), undefined, false],
  ])('%s', async (_what, stored, before, after, moved) => {
    expect((await movedRelease(sources(stored, before, after))) !== undefined).toBe(moved);
  });

  it('returns the stored release it compared', async () => {
    const stored = { revision: 2, status: 'failed' };
    expect(await movedRelease(sources(stored, installed(2), installed(2)))).toEqual({ stored });
  });
});
