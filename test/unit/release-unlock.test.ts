import { decodeRelease, encodeRelease } from '../../src/kube/helm-releases.js';
import type { ReleaseRecord } from '../../src/release/record.js';
import { isPendingStatus, refusedAsLocked, unlockedRecord } from '../../src/release/unlock.js';

describe('a release left pending by a helm that died', () => {
  it.each([
    ['pending-install', true],
    ['pending-upgrade', true],
    ['pending-rollback', true],
    ['deployed', false],
    ['failed', false],
    ['superseded', false],
    ['uninstalling', false],
    [undefined, false],
  ])('status %s is locked: %s', (status, locked) => {
    expect(isPendingStatus(status)).toBe(locked);
  });

  it.each([
    ['Error: UPGRADE FAILED: another operation (install/upgrade/rollback) is in progress\n', true],
    ['…\nError: another operation (install/upgrade/rollback) is in progress', true],
    ['Error: UPGRADE FAILED: context deadline exceeded', false],
    ['Error: INSTALLATION FAILED: cannot re-use a name that is still in use', false],
    ['', false],
  ])('helm log %j is a refusal on a locked release: %s', (log, refused) => {
    expect(refusedAsLocked(log)).toBe(refused);
  });

  it('is marked failed as helm marks a failed operation, everything else kept', () => {
    const record: ReleaseRecord = {
      name: 'web',
      namespace: 'apps',
      version: 2,
      info: { status: 'pending-upgrade', first_deployed: 'a', last_deployed: 'b', description: 'Preparing upgrade' },
      config: { replicas: 2 },
    };
    const unlocked = unlockedRecord(record, 'pending-upgrade', 'helm-install-web');
    expect(unlocked).toEqual({
      ...record,
      info: {
        status: 'failed',
        first_deployed: 'a',
        last_deployed: 'b',
        description:
          'helmflow: was pending-upgrade, but no pod of helm-install-web runs helm any more; marked failed so the next attempt may run',
      },
    });
    expect(record.info?.status).toBe('pending-upgrade');
  });

  it("is written back in helm's own encoding (base64 of gzipped JSON), which reads back the same", () => {
    const record: ReleaseRecord = { name: 'web', version: 3, info: { status: 'failed' }, config: { a: [1, 'b'] } };
    const encoded = encodeRelease(record);
    expect(Buffer.from(encoded, 'base64').subarray(0, 2)).toEqual(Buffer.from([0x1f, 0x8b]));
    expect(decodeRelease(encoded)).toEqual(record);
  });
});
