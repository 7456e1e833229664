import type { V1Job } from '@kubernetes/client-node';
import type { Client } from '@temporalio/client';
import { msToNumber } from '@temporalio/common/lib/time.js';
import { MockActivityEnvironment } from '@temporalio/testing';
import pino from 'pino';
import { waitFor } from '../../src/lib/wait.js';
import type { ActivityDeps } from '../../activities/deps.js';
import {
  GRANT_MS,
  JobSlots,
  PREPARE_HOLD_MS,
  WAITER_KEPT_MS,
  WAITER_LOOKED_MS,
} from '../../activities/job-slot-ledger.js';
import { awaitJobSlot } from '../../activities/job-slots.js';
import { HEARTBEAT_PACE_MS } from '../../activities/heartbeat-pace.js';
import {
  FAR_LOOK_MS,
  LOOK_MS,
  farBackFrom,
  nearFrontOfLine,
  nextLookMs,
  reservationHolds,
  slotFree,
  slotWaitHeartbeatTimeout,
  type Reservation,
  type SlotView,
  type WatchedJobs,
} from '../../src/build/job-slots.js';

/** The watch's view with `running` running and no other Job seen. */
const jobs = (...running: string[]): WatchedJobs => ({ running, seen: new Set() });

/** Each of `keys` looks once a second from `from` to `to`, finding no slot while `running` run. */
const keepLooking = (slots: JobSlots, keys: string[], from: number, to: number, running: string[]) => {
  for (let t = from; t <= to; t += 1_000)
    for (const key of keys) expect(slots.take(jobs(...running), key, t, GRANT_MS)).toBe(false);
};

describe('slotFree: one more install Job while fewer than the cap run, in the order charts began waiting', () => {
  const view = (v: Partial<SlotView> & Pick<SlotView, 'own' | 'max'>): SlotView => ({
    running: [],
    reserved: [],
    waiting: [],
    ...v,
  });
  const cases: [string, SlotView, boolean][] = [
    ['none running', view({ own: 'a/x', max: 1 }), true],
    ['the cap reached', view({ running: ['a/y', 'a/z'], own: 'a/x', max: 2 }), false],
    ['one below the cap', view({ running: ['a/y'], own: 'a/x', max: 2 }), true],
    [
      'a Job just created counts before the watch shows it',
      view({ running: ['a/y'], reserved: ['a/z'], own: 'a/x', max: 2 }),
      false,
    ],
    [
      'a reserved Job the watch shows counts once',
      view({ running: ['a/y'], reserved: ['a/y'], own: 'a/x', max: 2 }),
      true,
    ],
    ["the chart's own Job (a retried step) never counts", view({ running: ['a/x', 'a/y'], own: 'a/x', max: 2 }), true],
    ['a chart that has not waited queues behind every waiter', view({ waiting: ['a/w'], own: 'a/x', max: 1 }), false],
    [
      'a chart that has not waited takes a slot left over once each waiter has one',
      view({ waiting: ['a/w'], own: 'a/x', max: 2 }),
      true,
    ],
    ['the waiter that began first gets the slot', view({ waiting: ['a/x', 'a/w'], own: 'a/x', max: 1 }), true],
    [
      'a waiter that began later does not, though it looks first',
      view({ waiting: ['a/x', 'a/w'], own: 'a/w', max: 1 }),
      false,
    ],
    [
      'a chart holding a slot is ahead of every waiter (prepareInstall after its wait)',
      view({ reserved: ['a/x'], waiting: ['a/w'], own: 'a/x', max: 1 }),
      true,
    ],
    [
      'a waiter already granted a slot is no longer ahead',
      view({ reserved: ['a/w'], waiting: ['a/w', 'a/x'], own: 'a/x', max: 2 }),
      true,
    ],
  ];
  it.each(cases)('%s', (_, v, free) => {
    expect(slotFree(v)).toBe(free);
  });

  const holds: [string, Reservation, number, string[], boolean][] = [
    ['a slot granted, no Job yet', { until: 60_000 }, 59_000, ['uid-other'], true],
    ['a slot granted, run out', { until: 60_000 }, 60_001, [], false],
    ['a Job created, not in the watch yet', { until: 10_000, jobUid: 'u' }, 1_000, [], true],
    ['a Job created, in the watch', { until: 10_000, jobUid: 'u' }, 1_000, ['u'], false],
    ['a Job created, the watch showing only another of its name', { until: 10_000, jobUid: 'u' }, 1_000, ['v'], true],
    ['a Job created, never shown, run out', { until: 10_000, jobUid: 'u' }, 10_001, [], false],
  ];
  it.each(holds)('reservationHolds: %s', (_, reservation, now, seen, held) => {
    expect(reservationHolds(reservation, now, new Set(seen))).toBe(held);
  });

  it('JobSlots hands the last slot to one taker only, and forgets a reservation the watch never showed', () => {
    const slots = new JobSlots(1);
    expect(slots.take(jobs(), 'a/x', 0)).toBe(true);
    expect(slots.take(jobs(), 'a/y', 1)).toBe(false);
    expect(slots.take(jobs(), 'a/y', 10_001)).toBe(true);
  });

  it('frees the slot of a Job created in it as soon as the watch shows that Job ended, not 10 s after its creation', () => {
    const slots = new JobSlots(1);
    expect(slots.take(jobs(), 'a/x', 0)).toBe(true);
    slots.created('a/x', 'uid-x');
    // Not in the watch yet: still held.
    expect(slots.take(jobs(), 'a/y', 500)).toBe(false);
    // In the watch and running: the watch counts it.
    expect(slots.take({ running: ['a/x'], seen: new Set(['uid-x']) }, 'a/y', 1_000)).toBe(false);
    // Ended 2 s after its creation: its slot is free then, not at 10 s.
    expect(slots.take({ running: [], seen: new Set(['uid-x']) }, 'a/y', 2_000)).toBe(true);
  });

  it("holds a slot while the watch shows only an older Job of the same name, or before the chart's Job exists", () => {
    const slots = new JobSlots(1);
    const older = { running: [], seen: new Set(['uid-older']) };
    expect(slots.take(jobs(), 'a/x', 0, GRANT_MS)).toBe(true);
    expect(slots.take(older, 'a/y', 20_000)).toBe(false);
    expect(slots.take(jobs(), 'a/x', 30_000)).toBe(true);
    slots.created('a/x', 'uid-new');
    expect(slots.take(older, 'a/y', 31_000)).toBe(false);
    expect(slots.take({ running: [], seen: new Set(['uid-older', 'uid-new']) }, 'a/y', 32_000)).toBe(true);
  });

  it("keeps a slot awaitJobSlot took for GRANT_MS, until the chart's prepareInstall takes it for its Job", () => {
    const slots = new JobSlots(1);
    expect(slots.take(jobs(), 'a/x', 0, GRANT_MS)).toBe(true);
    // Past the 10 s a created Job is held, another chart still finds none: the chart's next step has not come yet.
    expect(slots.take(jobs(), 'a/y', 30_000)).toBe(false);
    expect(slots.take(jobs(), 'a/x', 30_000)).toBe(true);
    // prepareInstall's take held it 10 s more, for the watch to show the Job; after that, the watch counts it.
    expect(slots.take(jobs(), 'a/y', 40_001)).toBe(true);
  });

  it('counts the running Jobs once for every chart asking within 250 ms, and again after', () => {
    const slots = new JobSlots(1);
    let counts = 0;
    const count = () => {
      counts += 1;
      return jobs('a/y');
    };
    expect(slots.watched(count, 0).running).toEqual(['a/y']);
    expect(slots.watched(count, 249).running).toEqual(['a/y']);
    expect(counts).toBe(1);
    slots.watched(count, 250);
    expect(counts).toBe(2);
  });

  /** Each of `keys` looks once a second from `from` to `to`, as awaitJobSlot does, finding no slot. */
  it('hands freed slots to the waiting charts in the order they began, whoever looks first', () => {
    const slots = new JobSlots(1);
    // a, b and c begin waiting in that order while the one slot is taken.
    for (const [i, key] of ['a/a', 'a/b', 'a/c'].entries()) {
      expect(slots.take(jobs('a/running'), key, i, GRANT_MS)).toBe(false);
    }
    // The Job ends. c and b look first, and a new chart's prepareInstall asks: none of them is first in line.
    expect(slots.take(jobs(), 'a/c', 1_000, GRANT_MS)).toBe(false);
    expect(slots.take(jobs(), 'a/b', 1_001, GRANT_MS)).toBe(false);
    expect(slots.take(jobs(), 'a/new', 1_002)).toBe(false);
    expect(slots.take(jobs(), 'a/a', 1_003, GRANT_MS)).toBe(true);
    // a's prepareInstall creates its Job; it runs, b and c looking meanwhile, and ends: b is next, though c looks first.
    expect(slots.take(jobs(), 'a/a', 2_000)).toBe(true);
    keepLooking(slots, ['a/c', 'a/b'], 3_000, 20_000, ['a/a']);
    expect(slots.take(jobs(), 'a/c', 20_500, GRANT_MS)).toBe(false);
    expect(slots.take(jobs(), 'a/new', 20_501)).toBe(false);
    expect(slots.take(jobs(), 'a/b', 20_502, GRANT_MS)).toBe(true);
  });

  it('lets a waiter that stopped looking hold up no one, and gives it back its place when it looks again soon', () => {
    const slots = new JobSlots(1);
    expect(slots.take(jobs('a/running'), 'a/a', 0, GRANT_MS)).toBe(false);
    // a's wait ended (its chart was paused, say); b keeps looking, and gets the slot once a has not looked for a while.
    keepLooking(slots, ['a/b'], 1, WAITER_LOOKED_MS, ['a/running']);
    expect(slots.take(jobs(), 'a/b', WAITER_LOOKED_MS + 1, GRANT_MS)).toBe(true);
    // a comes back (its next round) while c waits too: a is still ahead of c.
    // b's prepareInstall creates its Job; it runs 10 s, then ends.
    const back = WAITER_LOOKED_MS + 2;
    expect(slots.take(jobs(), 'a/b', back)).toBe(true);
    keepLooking(slots, ['a/c', 'a/a'], back + 1, back + 10_000, ['a/b']);
    expect(slots.take(jobs(), 'a/c', back + 10_500, GRANT_MS)).toBe(false);
    expect(slots.take(jobs(), 'a/a', back + 10_501, GRANT_MS)).toBe(true);
  });

  it('keeps the place a chart took in prepareInstall while its wait is lost and retried a minute later', () => {
    const slots = new JobSlots(1);
    // a's prepareInstall finds no slot; its wait is lost on the way to the worker. b comes, and waits.
    expect(slots.take(jobs('a/running'), 'a/a', 0, PREPARE_HOLD_MS)).toBe(false);
    keepLooking(slots, ['a/b'], 1_000, 40_000, ['a/running']);
    // The Job ends while a is gone: b takes the slot (a holds no one up), and its Job runs.
    expect(slots.take(jobs(), 'a/b', 40_500, GRANT_MS)).toBe(true);
    expect(slots.take(jobs(), 'a/b', 41_000)).toBe(true);
    keepLooking(slots, ['a/c'], 42_000, 60_000, ['a/b']);
    // a's wait comes back with its retry, 63 s after its last look: still ahead of c, which came after it.
    keepLooking(slots, ['a/a', 'a/c'], 63_000, 80_000, ['a/b']);
    expect(slots.take(jobs(), 'a/c', 80_500, GRANT_MS)).toBe(false);
    expect(slots.take(jobs(), 'a/a', 80_501, GRANT_MS)).toBe(true);
  });

  it('forgets a waiter that has not looked for WAITER_KEPT_MS: back, it queues anew', () => {
    const slots = new JobSlots(1);
    expect(slots.take(jobs('a/running'), 'a/a', 0, GRANT_MS)).toBe(false);
    const later = WAITER_KEPT_MS + 1;
    expect(slots.take(jobs('a/running'), 'a/b', later, GRANT_MS)).toBe(false);
    expect(slots.take(jobs('a/running'), 'a/a', later + 1, GRANT_MS)).toBe(false);
    expect(slots.take(jobs(), 'a/a', later + 2, GRANT_MS)).toBe(false);
    expect(slots.take(jobs(), 'a/b', later + 3, GRANT_MS)).toBe(true);
  });

  it('gives back a slot whose wait is no longer wanted to the next in line, unless another wait for that Job runs', () => {
    const slots = new JobSlots(1);
    const leaveA = slots.enter('a/a');
    expect(slots.take(jobs('a/running'), 'a/a', 0, GRANT_MS)).toBe(false);
    expect(slots.take(jobs('a/running'), 'a/b', 1, GRANT_MS)).toBe(false);
    expect(slots.take(jobs(), 'a/a', 1_000, GRANT_MS)).toBe(true);
    expect(slots.take(jobs(), 'a/b', 1_001, GRANT_MS)).toBe(false);
    // a's chart was paused: its wait gives the slot back, and b takes it at its next look, not GRANT_MS later.
    slots.giveBack('a/a');
    leaveA();
    expect(slots.take(jobs(), 'a/b', 2_000, GRANT_MS)).toBe(true);

    // c's chart got a new spec: its old wait (cancelled) and its new one run together; the slot stays c's.
    const again = new JobSlots(1);
    const leaveOld = again.enter('a/c');
    const leaveNew = again.enter('a/c');
    expect(again.take(jobs(), 'a/c', 0, GRANT_MS)).toBe(true);
    again.giveBack('a/c');
    leaveOld();
    expect(again.take(jobs(), 'a/d', 1, GRANT_MS)).toBe(false);
    expect(again.take(jobs(), 'a/c', 2, GRANT_MS)).toBe(true);
    leaveNew();
  });
});

describe("a slot wait's heartbeat timeout: what a wait lost on its way to a worker costs its chart", () => {
  it.each([
    { nearFront: true, timeout: '20 seconds' },
    { nearFront: false, timeout: '1 minute' },
    // A prepareInstall recorded before it said where the chart stands.
    { nearFront: undefined, timeout: '1 minute' },
  ])('near the front $nearFront: $timeout', ({ nearFront, timeout }) => {
    expect(slotWaitHeartbeatTimeout(nearFront)).toBe(timeout);
  });

  // The wait hands the SDK a heartbeat every HEARTBEAT_PACE_MS of looks, so one lands at most a pace and a look
  // apart (a look being 3 s at most, far back in the line, where a chart that was near the front may yet find
  // itself if waits lost ahead of it come back); the SDK's core sends one per 0.8 × the timeout only if one was
  // handed to it within that interval.
  it.each([true, false])("hands heartbeats on within the SDK's send interval (near the front %s)", (near) => {
    expect(HEARTBEAT_PACE_MS + Math.max(LOOK_MS, FAR_LOOK_MS)).toBeLessThan(
      0.8 * msToNumber(slotWaitHeartbeatTimeout(near)),
    );
  });

  it.each([
    { ahead: 0, max: 32, near: true },
    { ahead: 31, max: 32, near: true },
    { ahead: 32, max: 32, near: false },
    { ahead: 500, max: 32, near: false },
    { ahead: 0, max: 1, near: true },
    { ahead: 1, max: 1, near: false },
  ])('$ahead waiters ahead, $max slots: near the front $near', ({ ahead, max, near }) => {
    expect(nearFrontOfLine(ahead, max)).toBe(near);
  });

  it('JobSlots counts the waiters still looking ahead of a chart, up to the cap', () => {
    const slots = new JobSlots(2);
    for (const [i, key] of ['a/a', 'a/b', 'a/c', 'a/d'].entries()) {
      expect(slots.take(jobs('a/r1', 'a/r2'), key, i, GRANT_MS)).toBe(false);
    }
    expect(slots.waitersAhead('a/a', 10)).toBe(0);
    expect(slots.waitersAhead('a/b', 10)).toBe(1);
    expect(slots.waitersAhead('a/c', 10)).toBe(2);
    // Counted only up to the cap: a chart further back is far enough.
    expect(slots.waitersAhead('a/d', 10)).toBe(2);
    // a and b stop looking (their waits were lost): they hold up no one, so c and d move up.
    keepLooking(slots, ['a/c', 'a/d'], 1_000, WAITER_LOOKED_MS + 1_000, ['a/r1', 'a/r2']);
    expect(slots.waitersAhead('a/c', WAITER_LOOKED_MS + 1_000)).toBe(0);
    expect(slots.waitersAhead('a/d', WAITER_LOOKED_MS + 1_000)).toBe(1);
  });
});

const runningJob = (name: string, ended = false): V1Job => ({
  metadata: { name, namespace: 'kube-system', labels: { 'helmcharts.helm.k3sm.io/action': 'install' } },
  status: ended ? { conditions: [{ type: 'Complete', status: 'True' }] } : { active: 1 },
});

/** The one chart whose slot waits these tests run. */
const target = { ref: { group: 'helm.k3sm.io' as const, namespace: 'kube-system', name: 'podinfo' }, uid: 'u' };

/** What awaitJobSlot reads: the worker's line (`slots`) and its Job watch, whose Jobs `list` gives at each count. */
const waitDeps = (slots: JobSlots, list: () => V1Job[] = () => []) =>
  ({
    group: 'helm.k3sm.io',
    log: pino({ level: 'silent' }),
    slots,
    jobs: { start: async () => undefined, list },
  }) as unknown as ActivityDeps;

describe('awaitJobSlot', () => {
  it('takes the slot as soon as a running install Job ends; an uninstall Job never counts', async () => {
    let looks = 0;
    const slots = new JobSlots(1);
    // Another chart's install Job runs for two looks, then completes.
    const deps = waitDeps(slots, () => {
      looks += 1;
      const uninstall: V1Job = { metadata: { name: 'helm-delete-gone', labels: {} }, status: { active: 1 } };
      return [runningJob('helm-install-other', looks > 2), uninstall];
    });
    let asked = 0;
    const answer = () => {
      asked += 1;
      return false;
    };
    const env = new MockActivityEnvironment(undefined, { client: temporalAnswering(answer) });
    const heartbeats: unknown[] = [];
    env.on('heartbeat', (details: unknown) => heartbeats.push(details));
    expect(await env.run(awaitJobSlot, deps, target, 'helm-install-podinfo')).toBe(true);
    expect(looks).toBe(3);
    // A heartbeat at the first look that found no slot, then one per HEARTBEAT_PACE_MS (the second look came 1 s
    // later): a wait no worker runs any more shows within the heartbeat timeout. Each says how many looks the wait
    // has made (the Temporal UI shows it; a retry's log line tells it from none).
    expect(heartbeats).toEqual([{ looks: 1 }]);
    // Taken for this chart: another chart finds none, this chart's next step (prepareInstall) finds its own.
    expect(slots.take(jobs(), 'kube-system/helm-install-third', Date.now() + 30_000)).toBe(false);
    expect(slots.take(jobs(), 'kube-system/helm-install-podinfo', Date.now())).toBe(true);
    // Temporal was asked once, when the turn came, whether the wait was still wanted.
    expect(asked).toBe(1);
  });

  it.each([
    ['Temporal says its cancel was requested (a pause, delete or new spec)', () => true],
    [
      'Temporal no longer knows the attempt (the run continued as new)',
      () => {
        throw Object.assign(new Error('not found'), { code: 5, details: 'not found', metadata: {} });
      },
    ],
  ])('gives the slot back at its turn when %s', async (_, cancelRequested) => {
    const slots = new JobSlots(1);
    const env = new MockActivityEnvironment(undefined, { client: temporalAnswering(cancelRequested) });
    expect(await env.run(awaitJobSlot, waitDeps(slots), target, 'helm-install-podinfo')).toBe(false);
    expect(slots.take(jobs(), 'kube-system/helm-install-other', Date.now())).toBe(true);
  });

  it('takes the slot when Temporal cannot be asked: no worse than before it asked', async () => {
    const slots = new JobSlots(1);
    const unreachable = () => {
      throw Object.assign(new Error('unavailable'), { code: 14, details: 'unavailable', metadata: {} });
    };
    const env = new MockActivityEnvironment(undefined, { client: temporalAnswering(unreachable) });
    expect(await env.run(awaitJobSlot, waitDeps(slots), target, 'helm-install-podinfo')).toBe(true);
    expect(slots.take(jobs(), 'kube-system/helm-install-other', Date.now())).toBe(false);
  });
});

describe("a slot wait's looks", () => {
  it.each([
    { ahead: 0, max: 32, ms: LOOK_MS },
    { ahead: 63, max: 32, ms: LOOK_MS },
    { ahead: 64, max: 32, ms: FAR_LOOK_MS },
    // A small cap: still at least FAR_BACK_LEAST ahead.
    { ahead: 7, max: 1, ms: LOOK_MS },
    { ahead: 8, max: 1, ms: FAR_LOOK_MS },
    { ahead: 7, max: 4, ms: LOOK_MS },
    { ahead: 8, max: 4, ms: FAR_LOOK_MS },
  ])('$ahead waiters still looking ahead, $max slots: the next look after $ms ms', ({ ahead, max, ms }) => {
    expect(nextLookMs(ahead, max)).toBe(ms);
  });

  it('JobSlots counts the waiters ahead as far as asked', () => {
    const slots = new JobSlots(1);
    for (let i = 0; i < 12; i++) expect(slots.take(jobs('a/r'), `a/w${String(i)}`, i, GRANT_MS)).toBe(false);
    expect(slots.waitersAhead('a/w11', 12)).toBe(1);
    expect(slots.waitersAhead('a/w11', 12, farBackFrom(1))).toBe(8);
    expect(slots.waitersAhead('a/w5', 12, farBackFrom(1))).toBe(5);
  });

  it('a chart further back looks again before it would stop counting as looking, and so keeps holding its place', () => {
    expect(FAR_LOOK_MS + LOOK_MS).toBeLessThanOrEqual(WAITER_LOOKED_MS);
  });

  it.each([
    {
      name: 'far back (the one slot taken, 8 charts looking ahead of it), every 3 s',
      ahead: 8,
      from: 2_950,
      to: 4_500,
    },
    { name: 'with fewer ahead (7), every second', ahead: 7, from: 950, to: 2_500 },
  ])('looks $name', async ({ ahead, from, to }) => {
    const slots = new JobSlots(1);
    const running = jobs('kube-system/helm-install-other');
    const looked: number[] = [];
    const deps = waitDeps(slots, () => {
      looked.push(performance.now());
      return [runningJob('helm-install-other')];
    });
    // The charts ahead keep looking (as their own waits would), so they stay ahead.
    const aheadLook = () => {
      for (let i = 0; i < ahead; i++) slots.take(running, `kube-system/helm-install-ahead-${String(i)}`, Date.now());
    };
    aheadLook();
    const keepAhead = setInterval(aheadLook, 500);
    const env = new MockActivityEnvironment(undefined, { client: temporalAnswering(() => false) });
    const waiting = env.run(awaitJobSlot, deps, target, 'helm-install-podinfo').catch((err: unknown) => err);
    try {
      await waitFor('the second look', () => looked.length >= 2, { timeoutMs: 10_000, intervalMs: 50 });
    } finally {
      env.cancel();
      clearInterval(keepAhead);
    }
    await waiting;
    const between = (looked[1] ?? 0) - (looked[0] ?? 0);
    expect(between).toBeGreaterThanOrEqual(from);
    expect(between).toBeLessThan(to);
  });
});

/** Steers stillWanted's branches only: a Temporal client whose heartbeat answer is `cancelRequested()`. */
function temporalAnswering(cancelRequested: () => boolean): Client {
  return {
    withAbortSignal: async <R>(_: AbortSignal, call: () => Promise<R>) => call(),
    connection: { withDeadline: async <R>(_: number, call: () => Promise<R>) => call() },
    workflowService: {
      recordActivityTaskHeartbeat: async () => ({ cancelRequested: cancelRequested() }),
    },
  } as unknown as Client;
}
