import type { ChartRef, DesiredState } from '../../workflows/contract.js';
import { defaultTuning } from '../../workflows/contract.js';
import { initialState, statusOf, supersedes, wantsInstall, type ChartState } from '../../workflows/state.js';

const ref: ChartRef = { group: 'helm.k3sm.io', namespace: 'kube-system', name: 'podinfo' };
const desired = (digest: string, generation = 1): DesiredState => ({
  uid: 'uid-1',
  generation,
  digest,
  failurePolicy: 'reinstall',
});
const state = (patch: Partial<ChartState> = {}): ChartState => ({ ...initialState(ref, defaultTuning), ...patch });

describe('initialState', () => {
  it('starts Pending with nothing desired, installed or requested', () => {
    expect(initialState(ref, defaultTuning)).toEqual({
      ref,
      tuning: defaultTuning,
      uid: undefined,
      desired: undefined,
      installedDigest: undefined,
      phase: 'Pending',
      attempt: 0,
      failures: 0,
      jobName: undefined,
      lastFailure: undefined,
      halted: undefined,
      paused: false,
      deleteRequested: false,
      retryRequest: undefined,
      successor: undefined,
    });
  });
});

describe('wantsInstall', () => {
  it.each<[string, Partial<ChartState>, boolean]>([
    ['nothing desired yet', {}, false],
    ['a desired digest not installed', { desired: desired('d1') }, true],
    ['the desired digest already installed', { desired: desired('d1'), installedDigest: 'd1' }, false],
    ['a newer digest than the installed one', { desired: desired('d2'), installedDigest: 'd1' }, true],
    ['paused', { desired: desired('d1'), paused: true }, false],
    ['being deleted', { desired: desired('d1'), deleteRequested: true }, false],
    [
      'halted until a new generation, same generation with a new digest',
      { desired: desired('d2', 1), halted: { digest: 'd1', generation: 1, until: 'generation' } },
      false,
    ],
    [
      'halted until a new generation, a new generation arrived',
      { desired: desired('d2', 2), halted: { digest: 'd1', generation: 1, until: 'generation' } },
      true,
    ],
    [
      'halted until a new digest, the same digest',
      { desired: desired('d1', 2), halted: { digest: 'd1', generation: 1, until: 'digest' } },
      false,
    ],
    [
      'halted until a new digest, a new digest of the same generation',
      { desired: desired('d2', 1), halted: { digest: 'd1', generation: 1, until: 'digest' } },
      true,
    ],
  ])('%s → %s', (_what, patch, expected) => {
    expect(wantsInstall(state(patch))).toBe(expected);
  });
});

describe('supersedes', () => {
  it('holds when the desired digest moved on, a delete or a retry was asked; not for the same digest', () => {
    expect(supersedes(state({ desired: desired('d1') }), 'd1')).toBe(false);
    expect(supersedes(state({ desired: desired('d2') }), 'd1')).toBe(true);
    expect(supersedes(state({ desired: desired('d1'), deleteRequested: true }), 'd1')).toBe(true);
    expect(supersedes(state({ desired: desired('d1'), retryRequest: { requestedBy: 'test' } }), 'd1')).toBe(true);
    expect(supersedes(state(), 'd1')).toBe(false);
  });
});

describe('statusOf', () => {
  it('answers with the public part of the state only', () => {
    const s = state({
      uid: 'uid-1',
      desired: desired('d2'),
      installedDigest: 'd1',
      phase: 'Backoff',
      attempt: 3,
      failures: 2,
      jobName: 'helm-install-podinfo',
      lastFailure: { reason: 'DeadlineExceeded', digest: 'd2' },
      paused: false,
    });
    expect(statusOf(s)).toEqual({
      ref,
      uid: 'uid-1',
      phase: 'Backoff',
      desiredDigest: 'd2',
      installedDigest: 'd1',
      attempt: 3,
      jobName: 'helm-install-podinfo',
      lastFailure: { reason: 'DeadlineExceeded', digest: 'd2' },
    });
  });
});
