import { SUSPEND_ANNOTATION, UNINSTALL_FINALIZER, UNMANAGED_ANNOTATION, type HelmChart } from '../../src/api/index.js';
import { decide } from '../../src/controller/desired-state.js';

const chart = (
  annotations: Record<string, string>,
  deleting: boolean,
  finalizers = [UNINSTALL_FINALIZER],
): HelmChart => ({
  apiVersion: 'helm.k3sm.io/v1',
  kind: 'HelmChart',
  metadata: {
    name: 'podinfo',
    namespace: 'kube-system',
    uid: 'uid-1',
    generation: 1,
    annotations,
    finalizers,
    ...(deleting ? { deletionTimestamp: '2026-01-01T00:00:00Z' } : {}),
  },
  spec: { chart: 'podinfo', repo: 'https://charts.example.com' },
});

describe('decide, for a chart being deleted', () => {
  it.each<[string, Record<string, string>, boolean]>([
    ['a managed chart is uninstalled', {}, false],
    ['an unmanaged chart keeps its release (no helm uninstall)', { [UNMANAGED_ANNOTATION]: 'true' }, true],
    ['unmanaged "false" is managed', { [UNMANAGED_ANNOTATION]: 'false' }, false],
  ])('%s', (_what, annotations, keepRelease) => {
    expect(decide(chart(annotations, true), undefined, {}, {})).toEqual({ kind: 'delete', uid: 'uid-1', keepRelease });
  });

  it('leaves a deleting chart without helmflow’s finalizer alone', () => {
    expect(decide(chart({}, true, []), undefined, {}, {})).toMatchObject({ kind: 'ignore' });
  });

  it('ignores a live unmanaged chart', () => {
    expect(decide(chart({ [UNMANAGED_ANNOTATION]: 'true' }, false), undefined, {}, {})).toMatchObject({
      kind: 'ignore',
    });
  });
});

describe('decide, for a suspended chart', () => {
  it.each<[string, Record<string, string>, boolean]>([
    ['no annotation', {}, false],
    ['suspend "true"', { [SUSPEND_ANNOTATION]: 'true' }, true],
    ['suspend with a reason as its value', { [SUSPEND_ANNOTATION]: 'maintenance until Monday' }, true],
    ['suspend "false"', { [SUSPEND_ANNOTATION]: 'false' }, false],
  ])('%s', (_what, annotations, suspended) => {
    const action = decide(chart(annotations, false), undefined, {}, {});
    expect(action.kind).toBe('desired');
    if (action.kind !== 'desired') return;
    // Only a suspended chart carries the flag, so the desired state of every other chart is what it was.
    expect('suspended' in action.state).toBe(suspended);
    if (suspended) expect(action.state.suspended).toBe(true);
  });
});
