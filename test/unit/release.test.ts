import { gzipSync } from 'node:zlib';
import { decodeRelease } from '../../src/kube/helm-releases.js';
import { checkRelease } from '../../src/release/assertions.js';
import type { ReleaseRecord } from '../../src/release/record.js';
import { sameRelease, summarize, type ReleaseSummary } from '../../src/release/summary.js';
import { computedValues, valuesHash } from '../../src/release/values.js';
import { releaseMoved } from '../../src/controller/release-drift.js';

const record: ReleaseRecord = {
  name: 'web',
  namespace: 'apps',
  version: 3,
  info: { status: 'deployed', first_deployed: '2026-01-01T00:00:00Z', last_deployed: '2026-01-02T00:00:00Z' },
  chart: {
    metadata: { name: 'web', version: '1.2.3', appVersion: '4.5' },
    values: { replicas: 1, image: { tag: 'a', pull: 'Always' } },
  },
  config: { image: { tag: 'b' }, password: 'hunter2' },
};

describe('decodeRelease (helm 4 storage: base64 of gzipped JSON)', () => {
  it('reads a gzipped record', () => {
    const encoded = gzipSync(Buffer.from(JSON.stringify(record))).toString('base64');
    expect(decodeRelease(encoded)).toEqual(record);
  });

  it('reads a record stored before helm compressed them', () => {
    expect(decodeRelease(Buffer.from(JSON.stringify(record)).toString('base64'))).toEqual(record);
  });
});

describe('computedValues (as helm get values --all)', () => {
  it.each<[string, Record<string, unknown> | undefined, Record<string, unknown> | undefined, Record<string, unknown>]>([
    ['defaults alone', { a: 1 }, undefined, { a: 1 }],
    ['supplied alone', undefined, { a: 1 }, { a: 1 }],
    ['supplied wins on a scalar', { a: 1 }, { a: 2 }, { a: 2 }],
    ['maps merge key by key', { m: { x: 1, y: 2 } }, { m: { y: 3 } }, { m: { x: 1, y: 3 } }],
    ['a null removes the default', { a: 1, b: 2 }, { a: null }, { b: 2 }],
    ['a list replaces, never merges', { l: [1, 2] }, { l: [3] }, { l: [3] }],
    ['a map replaces a scalar', { a: 1 }, { a: { x: 1 } }, { a: { x: 1 } }],
  ])('%s', (_what, defaults, supplied, expected) => {
    expect(computedValues(defaults, supplied)).toEqual(expected);
  });
});

describe('valuesHash', () => {
  it('does not depend on key order', () => {
    expect(valuesHash({ a: 1, b: { c: 2, d: 3 } })).toBe(valuesHash({ b: { d: 3, c: 2 }, a: 1 }));
  });

  it('is sha256 of the canonical JSON', () => {
    // echo -n '{"a":1}' | sha256sum
    expect(valuesHash({ a: 1 })).toBe('015abd7f5cc57a2dd94b7590f04ad8084273905ee33ec5cebeae62276a97f862');
  });
});

describe('summarize', () => {
  it('carries revision, status, chart, versions, time and the values hash, never the values', () => {
    const summary = summarize(record);
    expect(summary).toEqual({
      name: 'web',
      namespace: 'apps',
      revision: 3,
      status: 'deployed',
      chart: 'web',
      chartVersion: '1.2.3',
      appVersion: '4.5',
      lastDeployed: '2026-01-02T00:00:00Z',
      valuesHash: valuesHash({ replicas: 1, image: { tag: 'b', pull: 'Always' }, password: 'hunter2' }),
    });
    expect(JSON.stringify(summary)).not.toContain('hunter2');
  });

  it('fills what an odd record lacks', () => {
    expect(summarize({})).toMatchObject({ revision: 0, status: 'unknown', chart: '', appVersion: '' });
  });

  it('sameRelease compares every field', () => {
    const summary = summarize(record);
    expect(sameRelease(summary, summary)).toBe(true);
    expect(sameRelease({ ...summary, status: 'failed' }, summary)).toBe(false);
    expect(sameRelease(undefined, summary)).toBe(false);
    expect(sameRelease(undefined, undefined)).toBe(true);
  });
});

describe('checkRelease (helmflow chart check)', () => {
  const release: ReleaseSummary = summarize(record);
  it.each<[string, ReleaseSummary | undefined, Parameters<typeof checkRelease>[2], string | undefined]>([
    ['no release fails exists', undefined, {}, 'exists'],
    ['no assertion passes on any release', release, {}, undefined],
    ['status deployed passes', release, { status: 'deployed' }, undefined],
    ['status failed fails', release, { status: 'failed' }, 'status'],
    ['min revision 3 passes', release, { minRevision: 3 }, undefined],
    ['min revision 4 fails', release, { minRevision: 4 }, 'revision'],
    ['the right hash passes', release, { valuesHash: release.valuesHash }, undefined],
    ['another hash fails', release, { valuesHash: 'abc' }, 'values-hash'],
    ['status is checked before revision', release, { status: 'failed', minRevision: 9 }, 'status'],
    ['revision is checked before the hash', release, { minRevision: 9, valuesHash: 'x' }, 'revision'],
  ])('%s', (_what, held, want, failing) => {
    const result = checkRelease('apps/web', held, want);
    if (failing === undefined) expect(result.ok).toBe(true);
    else expect(result).toMatchObject({ ok: false, assertion: failing });
    expect(result.message).toMatch(/^apps\/web: /u);
  });
});

describe('releaseMoved (the controller signals a re-read only on a change)', () => {
  const held = summarize(record);
  it.each<[string, ReleaseSummary | undefined, { revision: number; status: string } | undefined, boolean]>([
    ['never installed, nothing recorded', undefined, undefined, false],
    ['the same revision and status', held, { revision: 3, status: 'deployed' }, false],
    ['a new revision (a rollback by hand)', held, { revision: 4, status: 'deployed' }, true],
    ['a new status', held, { revision: 3, status: 'failed' }, true],
    ['uninstalled behind helmflow', held, undefined, true],
    ['a release not yet recorded', undefined, { revision: 1, status: 'deployed' }, true],
  ])('%s', (_what, status, stored, moved) => {
    expect(releaseMoved(status, stored)).toBe(moved);
  });

  it.each<[string | undefined, boolean]>([
    ['Installing', false],
    ['Deleting', false],
    ['Installed', true],
    ['Failed', true],
    [undefined, true],
  ])('a new revision while the chart is %s → %s (an install reports its own release)', (phase, moved) => {
    expect(releaseMoved(held, { revision: 4, status: 'pending-upgrade' }, phase)).toBe(moved);
  });
});
