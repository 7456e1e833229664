import {
  DEPENDS_ON_ANNOTATION,
  K3S_FINALIZER,
  K3S_UNMANAGED_ANNOTATION,
  SUSPEND_ANNOTATION,
  UNINSTALL_FINALIZER,
  UNMANAGED_ANNOTATION,
  uninstallFinalizers,
  type ApiGroup,
  type HelmChart,
} from '../../src/api/index.js';
import { decide, ignoreReason } from '../../src/controller/desired-state.js';

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

describe('decide, serving helm.cattle.io in place of k3s’s helm-controller', () => {
  const cattle = { group: 'helm.cattle.io' } as const;
  it.each<[string, string[], boolean, string]>([
    ['a live chart k3s took gets helmflow’s finalizer beside k3s’s', [K3S_FINALIZER], false, 'addFinalizer'],
    ['a live chart with both finalizers is signalled', [K3S_FINALIZER, UNINSTALL_FINALIZER], false, 'desired'],
    ['a deleting chart with both finalizers is uninstalled', [K3S_FINALIZER, UNINSTALL_FINALIZER], true, 'delete'],
    ['a deleting chart with k3s’s finalizer alone is uninstalled', [K3S_FINALIZER], true, 'delete'],
    ['a deleting chart with neither finalizer is left alone', ['someone.else/finalizer'], true, 'ignore'],
  ])('%s', (_what, finalizers, deleting, kind) => {
    expect(decide(chart({}, deleting, finalizers), undefined, {}, cattle)).toMatchObject({ kind });
  });

  it('k3s’s finalizer means nothing to helmflow serving its own group', () => {
    expect(decide(chart({}, true, [K3S_FINALIZER]), undefined, {}, {})).toMatchObject({ kind: 'ignore' });
  });

  it.each<[string, Record<string, string>, boolean, string]>([
    [
      'k3s’s unmanaged annotation (any value) leaves a live chart alone',
      { [K3S_UNMANAGED_ANNOTATION]: '' },
      false,
      'ignore',
    ],
    ['k3s’s unmanaged annotation keeps the release on delete', { [K3S_UNMANAGED_ANNOTATION]: 'true' }, true, 'delete'],
  ])('%s', (_what, annotations, deleting, kind) => {
    const decided = decide(chart(annotations, deleting, [K3S_FINALIZER, UNINSTALL_FINALIZER]), undefined, {}, cattle);
    expect(decided).toMatchObject(kind === 'delete' ? { kind, keepRelease: true } : { kind });
  });

  it('k3s’s unmanaged annotation is only k3s’s word on helm.cattle.io', () => {
    const decided = decide(chart({ [K3S_UNMANAGED_ANNOTATION]: 'true' }, false), undefined, {}, {});
    expect(decided).toMatchObject({ kind: 'desired' });
  });
});

describe('uninstallFinalizers: the finalizers helmflow releases after its uninstall', () => {
  it.each<[ApiGroup, string[]]>([
    ['helm.k3sm.io', [UNINSTALL_FINALIZER]],
    ['helm.cattle.io', [UNINSTALL_FINALIZER, K3S_FINALIZER]],
  ])('%s', (group, expected) => {
    expect(uninstallFinalizers(group)).toEqual(expected);
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

describe('ignoreReason: the charts a resync does not queue (nothing is ever delivered to them)', () => {
  it.each<[string, HelmChart, string | undefined]>([
    ['a managed live chart', chart({}, false), undefined],
    ['a live chart without the finalizer yet', chart({}, false, []), undefined],
    ['an unmanaged live chart', chart({ [UNMANAGED_ANNOTATION]: 'true' }, false), 'annotated unmanaged'],
    ['a deleting chart with helmflow’s finalizer', chart({}, true), undefined],
    [
      'a deleting unmanaged chart with the finalizer (released, no uninstall)',
      chart({ [UNMANAGED_ANNOTATION]: 'true' }, true),
      undefined,
    ],
    [
      'a deleting chart without a finalizer helmflow releases',
      chart({}, true, ['someone.else/finalizer']),
      'deleting, not ours',
    ],
  ])('%s', (_what, subject, why) => {
    expect(ignoreReason(subject, 'helm.k3sm.io')).toBe(why);
    // The same answer decide gives.
    expect(decide(subject, undefined, {}, {}).kind === 'ignore').toBe(why !== undefined);
  });
});

describe('decide, for a chart with depends-on', () => {
  it('carries what holds it back, and nothing once its dependencies are installed', () => {
    const subject = chart({ [DEPENDS_ON_ANNOTATION]: 'db/postgres' }, false);
    const dependency = {
      ...chart({}, false),
      metadata: { ...chart({}, false).metadata, namespace: 'db', name: 'postgres' },
    };
    const lookup = (installed: boolean) => () => ({
      ...dependency,
      status: installed ? { phase: 'Installed', observedGeneration: 1 } : { phase: 'Installing' },
    });
    const waiting = decide(subject, undefined, {}, {}, lookup(false));
    expect(waiting).toMatchObject({
      kind: 'desired',
      state: { dependencies: { reason: 'DependenciesNotReady', message: 'waiting for db/postgres to be installed' } },
    });
    const ready = decide(subject, undefined, {}, {}, lookup(true));
    expect(ready.kind === 'desired' && ready.state).not.toHaveProperty('dependencies');
    // Waiting changes what is sent, never what is installed.
    expect(ready.kind === 'desired' && waiting.kind === 'desired' && ready.state.digest).toBe(
      waiting.kind === 'desired' && waiting.state.digest,
    );
  });
});
