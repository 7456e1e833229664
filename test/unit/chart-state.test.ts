import type { ChartRef, DesiredState } from '../../workflows/contract.js';
import { defaultTuning } from '../../workflows/contract.js';
import {
  dependenciesToReport,
  initialState,
  isStaleDesired,
  phaseAfterResume,
  suspensionToReport,
  statusOf,
  supersedes,
  termAfter,
  wantsInstall,
  type ChartState,
} from '../../workflows/state.js';

const ref: ChartRef = { group: 'helm.k3sm.io', namespace: 'kube-system', name: 'podinfo' };
const desired = (digest: string, generation = 1): DesiredState => ({
  uid: 'uid-1',
  generation,
  digest,
  failurePolicy: 'reinstall',
});
const state = (patch: Partial<ChartState> = {}): ChartState => ({ ...initialState(ref, defaultTuning), ...patch });
const waiting = { reason: 'DependenciesNotReady', message: 'waiting for db/postgres to be installed' } as const;
const cycle = { reason: 'DependencyCycle', message: 'a → b → a' } as const;

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
    ['suspended, with a digest not installed', { desired: { ...desired('d2'), suspended: true } }, false],
    [
      'held by its dependencies, with a digest not installed',
      { desired: { ...desired('d2'), dependencies: waiting } },
      false,
    ],
    ['held by a dependency cycle', { desired: { ...desired('d2'), dependencies: cycle } }, false],
    [
      'suspended, after a retry cleared the installed digest',
      { desired: { ...desired('d1'), suspended: true }, installedDigest: undefined },
      false,
    ],
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

describe('isStaleDesired', () => {
  const incoming = (generation: number, term?: number, uid = 'uid-1'): DesiredState => ({
    ...desired('dx', generation),
    uid,
    ...(term === undefined ? {} : { term }),
  });
  it.each<[string, Pick<ChartState, 'desired' | 'term'>, DesiredState, boolean]>([
    ['nothing held yet', { desired: undefined, term: undefined }, incoming(1), false],
    ['nothing held yet, a term lower than one seen', { desired: undefined, term: 5 }, incoming(1, 4), true],
    ['a lower generation of the same chart', { desired: desired('d3', 3) }, incoming(2), true],
    ['a lower generation, even under a higher term', { desired: desired('d3', 3), term: 1 }, incoming(2, 9), true],
    ['the same generation (a config or Secret change)', { desired: desired('d3', 3) }, incoming(3), false],
    ['a higher generation', { desired: desired('d3', 3) }, incoming(4), false],
    ['the same generation under a lower term', { desired: desired('d3', 3), term: 5 }, incoming(3, 4), true],
    ['the same generation under the same term', { desired: desired('d3', 3), term: 5 }, incoming(3, 5), false],
    ['the same generation under a higher term', { desired: desired('d3', 3), term: 5 }, incoming(3, 6), false],
    [
      'a higher generation under a lower term (newer than held)',
      { desired: desired('d3', 3), term: 5 },
      incoming(4, 4),
      false,
    ],
    ['no term on the incoming one (no leader election)', { desired: desired('d3', 3), term: 5 }, incoming(3), false],
    ['another uid under the same term', { desired: desired('d3', 3), term: 5 }, incoming(1, 5, 'uid-2'), false],
    ['another uid under a lower term', { desired: desired('d3', 3), term: 5 }, incoming(1, 4, 'uid-2'), true],
  ])('%s → stale %s', (_what, held, input, expected) => {
    expect(isStaleDesired(held, input)).toBe(expected);
  });

  it('keeps the highest term seen', () => {
    expect(termAfter(undefined, undefined)).toBeUndefined();
    expect(termAfter(undefined, 3)).toBe(3);
    expect(termAfter(3, undefined)).toBe(3);
    expect(termAfter(3, 2)).toBe(3);
    expect(termAfter(3, 4)).toBe(4);
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

describe('suspensionToReport', () => {
  it.each<[string, Partial<ChartState>, 'suspended' | 'resumed' | undefined]>([
    ['never suspended', { desired: desired('d1') }, undefined],
    ['suspended, not yet reported', { desired: { ...desired('d1'), suspended: true } }, 'suspended'],
    ['suspended and reported', { desired: { ...desired('d1'), suspended: true }, suspendReported: true }, undefined],
    ['resumed after a report', { desired: desired('d1'), suspendReported: true }, 'resumed'],
    ['nothing desired', {}, undefined],
  ])('%s → %s', (_what, patch, expected) => {
    expect(suspensionToReport(state(patch))).toBe(expected);
  });
});

describe('dependenciesToReport', () => {
  it.each<[string, Partial<ChartState>, ReturnType<typeof dependenciesToReport>]>([
    ['no dependencies, ever', { desired: desired('d1') }, undefined],
    ['nothing desired', {}, undefined],
    ['a new wait', { desired: { ...desired('d1'), dependencies: waiting } }, waiting],
    [
      'the same wait, already said',
      { desired: { ...desired('d1'), dependencies: waiting }, dependenciesReported: waiting },
      undefined,
    ],
    [
      'the wait names other charts now',
      {
        desired: { ...desired('d1'), dependencies: { ...waiting, message: 'waiting for db/redis to be installed' } },
        dependenciesReported: waiting,
      },
      { ...waiting, message: 'waiting for db/redis to be installed' },
    ],
    [
      'a wait that became a cycle',
      { desired: { ...desired('d1'), dependencies: cycle }, dependenciesReported: waiting },
      cycle,
    ],
    ['a wait that ended', { desired: desired('d1'), dependenciesReported: waiting }, 'ready'],
  ])('%s', (_what, patch, expected) => {
    expect(dependenciesToReport(state(patch))).toEqual(expected);
  });
});

describe('phaseAfterResume', () => {
  it.each<[string, Partial<ChartState>, string]>([
    ['never installed', {}, 'Pending'],
    ['installed', { installedDigest: 'd1' }, 'Installed'],
    [
      'last attempt failed',
      { installedDigest: 'd1', lastFailure: { reason: 'BackoffLimitExceeded', digest: 'd2' } },
      'Failed',
    ],
    ['paused by a cancel meanwhile', { paused: true, installedDigest: 'd1' }, 'Paused'],
  ])('%s → %s', (_what, patch, expected) => {
    expect(phaseAfterResume(state(patch))).toBe(expected);
  });
});
