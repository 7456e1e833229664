import {
  afterAttempt,
  holdAfterFailure,
  type AttemptDecision,
  type AttemptEnd,
} from '../../workflows/after-attempt.js';
import { defaultTuning, type DesiredState } from '../../workflows/contract.js';

const tuning = { ...defaultTuning, backoffBaseSeconds: 10, backoffMaxSeconds: 300 };
const d2 = (failurePolicy: DesiredState['failurePolicy']) => ({ digest: 'd2', generation: 2, failurePolicy });
const installed = { installedDigest: 'd1', failures: 0, tuning };
const fresh = { installedDigest: undefined, failures: 0, tuning };
const failed: AttemptEnd = { kind: 'failed', reason: 'BackoffLimitExceeded', jobName: 'helm-install-podinfo' };
const refused: AttemptEnd = { kind: 'refused', reason: 'InvalidCrds' };
const lastFailure = (reason: string) => ({ lastFailure: { reason, digest: 'd2' } });

describe('afterAttempt: what follows an install attempt', () => {
  it.each<[string, Parameters<typeof afterAttempt>[0], DesiredState['failurePolicy'], AttemptEnd, AttemptDecision]>([
    [
      'succeeded: the digest is installed, every failure forgotten',
      installed,
      'reinstall',
      { kind: 'succeeded', digest: 'd2' },
      {
        set: { installedDigest: 'd2', failures: 0, halted: undefined, lastFailure: undefined },
        phase: 'Installed',
        then: 'return',
      },
    ],
    [
      'interrupted, something installed: forget it (the stopped Job may have changed the release)',
      installed,
      'reinstall',
      { kind: 'interrupted' },
      { set: {}, forget: 'reinstall-after-interrupted-attempt', phase: 'settled', then: 'return' },
    ],
    [
      'interrupted, nothing installed',
      fresh,
      'reinstall',
      { kind: 'interrupted' },
      { set: {}, phase: 'settled', then: 'return' },
    ],
    [
      'gone: hold until the next desired state',
      installed,
      'reinstall',
      { kind: 'gone' },
      { set: { halted: { digest: 'd2', generation: 2, until: 'digest' } }, phase: 'settled', then: 'return' },
    ],
    [
      'refused, whatever the policy: Failed, held until anything changes, the installed digest forgotten',
      installed,
      'reinstall',
      refused,
      {
        set: { ...lastFailure('InvalidCrds'), halted: { digest: 'd2', generation: 2, until: 'digest' } },
        forget: 'reinstall-after-failed-change',
        phase: 'Failed',
        then: 'return',
      },
    ],
    [
      'refused, nothing installed: nothing to forget',
      fresh,
      'abort',
      refused,
      {
        set: { ...lastFailure('InvalidCrds'), halted: { digest: 'd2', generation: 2, until: 'digest' } },
        phase: 'Failed',
        then: 'return',
      },
    ],
    [
      'failed under abort: Failed, held until the spec changes (the Job kept)',
      installed,
      'abort',
      failed,
      {
        set: {
          ...lastFailure('BackoffLimitExceeded'),
          failures: 1,
          halted: { digest: 'd2', generation: 2, until: 'generation' },
        },
        forget: 'reinstall-after-failed-change',
        phase: 'Failed',
        then: 'return',
      },
    ],
    [
      'failed under retry: Failed, held until anything changes',
      fresh,
      'retry',
      failed,
      {
        set: {
          ...lastFailure('BackoffLimitExceeded'),
          failures: 1,
          halted: { digest: 'd2', generation: 2, until: 'digest' },
        },
        phase: 'Failed',
        then: 'return',
      },
    ],
    [
      'failed under reinstall: back off, deleting the failed Job',
      installed,
      'reinstall',
      failed,
      {
        set: { ...lastFailure('BackoffLimitExceeded'), failures: 1 },
        forget: 'reinstall-after-failed-change',
        phase: 'Backoff',
        then: { backoffSeconds: 10, deleteJob: 'helm-install-podinfo' },
      },
    ],
    [
      'failed under reinstall before any Job (a step refused for good): back off, nothing to delete',
      fresh,
      'reinstall',
      { kind: 'failed', reason: 'QuotaExceeded', jobName: undefined },
      {
        set: { ...lastFailure('QuotaExceeded'), failures: 1 },
        phase: 'Backoff',
        then: { backoffSeconds: 10, deleteJob: undefined },
      },
    ],
  ])('%s', (_, s, policy, end, decision) => {
    expect(afterAttempt(s, d2(policy), end)).toEqual(decision);
  });

  it('doubles the backoff with each failure of the same digest, up to its cap', () => {
    const seconds = [0, 1, 2, 3, 5, 8].map((failures) => {
      const then = afterAttempt({ ...fresh, failures }, d2('reinstall'), failed).then;
      return then === 'return' ? undefined : then.backoffSeconds;
    });
    expect(seconds).toEqual([10, 20, 40, 80, 300, 300]);
  });
});

describe('holdAfterFailure', () => {
  it.each([
    ['abort', 'generation'],
    ['retry', 'digest'],
    ['reinstall', 'backoff'],
  ] as const)('failurePolicy %s → %s', (policy, expected) => {
    expect(holdAfterFailure(policy)).toBe(expected);
  });
});
