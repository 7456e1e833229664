// The chaos suite's own logic (test/e2e/support/chaos): the seeded plan and the invariants that judge a run.
import {
  attemptRegressions,
  duplicateInstallJobs,
  installedWithoutJob,
  repeatedDeleteJobs,
  stallAfter,
  type JobRecord,
} from '../e2e/support/chaos/invariants.js';
import { killKinds, makePlan } from '../e2e/support/chaos/plan.js';

const job = (over: Partial<JobRecord>): JobRecord => ({
  uid: 'job-1',
  name: 'helm-install-a',
  chart: 'a',
  chartUid: 'uid-a',
  action: 'install',
  digest: 'd1',
  attempt: '1',
  seenAt: 0,
  via: 'watch',
  ...over,
});

describe('the chaos plan', () => {
  it('is the same for the same seed and differs for another', () => {
    expect(makePlan(7, 20)).toEqual(makePlan(7, 20));
    expect(makePlan(8, 20)).not.toEqual(makePlan(7, 20));
  });

  it.each([2, 16, 100])('kills every kind at least once among %i operations, never before the first', (ops) => {
    const plan = makePlan(42, ops);
    expect(plan.operations).toHaveLength(ops);
    expect(new Set(plan.kills.map((k) => k.kind))).toEqual(new Set(killKinds));
    expect(plan.kills.every((k) => k.afterOp >= 1 && k.afterOp < ops)).toBe(true);
  });

  it('upgrades and deletes only charts that are installed and not yet deleted', () => {
    for (const seed of [1, 2, 3, 4, 5]) {
      const live = new Set<string>();
      const gone = new Set<string>();
      for (const op of makePlan(seed, 100).operations) {
        if (op.kind === 'install') {
          expect(live.has(op.chart) || gone.has(op.chart)).toBe(false);
          live.add(op.chart);
        } else {
          expect(live.has(op.chart)).toBe(true);
          if (op.kind === 'delete') {
            live.delete(op.chart);
            gone.add(op.chart);
          }
        }
      }
    }
  });

  it('lands the first worker kill on a Kubernetes call in flight', () => {
    expect(makePlan(99, 16).kills.find((k) => k.kind === 'worker')?.moment).toBe('call-in-flight');
  });
});

describe('the Job invariants', () => {
  it('accept attempts that each created one Job, in order, including after a Job deleted by reinstall', () => {
    const jobs = [
      job({ uid: 'j1', attempt: '1' }),
      job({ uid: 'j2', attempt: '2' }), // attempt 1 failed, its Job deleted; attempt 2 is a new key
      job({ uid: 'j3', attempt: '3', digest: 'd2' }),
      job({ uid: 'j4', chartUid: 'uid-a2', attempt: '1' }), // the chart recreated: a new uid starts over
      job({ uid: 'j5', action: 'delete', attempt: 'delete' }),
    ];
    expect(duplicateInstallJobs(jobs)).toEqual([]);
    expect(attemptRegressions(jobs)).toEqual([]);
    expect(repeatedDeleteJobs(jobs)).toEqual([]);
  });

  it('find a key created twice, an attempt created after a later one, and a second delete Job', () => {
    const jobs = [
      job({ uid: 'j1', attempt: '1' }),
      job({ uid: 'j2', attempt: '2' }),
      job({ uid: 'j3', attempt: '2' }),
      job({ uid: 'j4', attempt: '1' }),
      job({ uid: 'd1', action: 'delete', attempt: 'delete' }),
      job({ uid: 'd2', action: 'delete', attempt: 'delete' }),
    ];
    expect(duplicateInstallJobs(jobs).map((d) => d.jobUids)).toEqual([
      ['j1', 'j4'],
      ['j2', 'j3'],
    ]);
    expect(attemptRegressions(jobs)).toEqual([
      'a: attempt 2 created after attempt 2',
      'a: attempt 1 created after attempt 2',
    ]);
    expect(repeatedDeleteJobs(jobs)).toEqual([{ key: 'a/uid-a', jobUids: ['d1', 'd2'] }]);
  });

  it('find an Installed digest that no Job of that chart uid carried', () => {
    const jobs = [job({ digest: 'd1' })];
    expect(installedWithoutJob(jobs, [{ name: 'a', uid: 'uid-a', digest: 'd1' }])).toEqual([]);
    expect(installedWithoutJob(jobs, [{ name: 'a', uid: 'uid-b', digest: 'd1' }])).toHaveLength(1);
    expect(installedWithoutJob(jobs, [{ name: 'a', uid: 'uid-a', digest: 'd9' }])).toHaveLength(1);
  });
});

describe('the stall after a kill', () => {
  const progress: Record<string, number[]> = { a: [5, 12], b: [30] };
  const since = (name: string, t: number) => progress[name]?.find((p) => p >= t);

  it('is the longest wait for the first progress of each waiting chart', () => {
    expect(stallAfter(10, ['a', 'b'], since)).toEqual({ stallMs: 20, pending: [] });
  });

  it('names the charts with no progress, and is undefined with nothing waiting', () => {
    expect(stallAfter(31, ['a', 'b'], since)).toEqual({ stallMs: undefined, pending: ['a', 'b'] });
    expect(stallAfter(0, [], since)).toEqual({ stallMs: undefined, pending: [] });
  });
});
