import { afterEach, beforeEach, describe, expect, it, jest } from '@jest/globals';
import { resyncPace, StalledWork, WorkQueue } from '../../src/controller/work-queue.js';

describe('WorkQueue', () => {
  beforeEach(() => {
    jest.useFakeTimers();
  });
  afterEach(() => {
    jest.useRealTimers();
  });

  it('frees the slot of work that never ends, retries it, and goes on with the other keys', async () => {
    const started: string[] = [];
    const errors: unknown[] = [];
    const queue = new WorkQueue(
      (key) => {
        started.push(key);
        // "hung" never answers the first time (a call lost on a dead connection); every other call ends at once.
        return key === 'hung' && started.filter((k) => k === 'hung').length === 1
          ? new Promise<void>(() => undefined)
          : Promise.resolve();
      },
      {
        concurrency: 8,
        baseDelayMs: 500,
        maxDelayMs: 30_000,
        resyncConcurrency: 1,
        resyncIntervalMs: 50,
        stallMs: 1_000,
        onError: (_key, err) => errors.push(err),
      },
    );
    for (const key of ['hung', 'a', 'b']) queue.add(key, 'resync');
    await jest.advanceTimersByTimeAsync(900);
    // One resync slot, held by the hung key: nothing else has run yet.
    expect(started).toEqual(['hung']);
    await jest.advanceTimersByTimeAsync(2_000);
    expect(errors).toHaveLength(1);
    expect(errors[0]).toBeInstanceOf(StalledWork);
    expect(started).toEqual(['hung', 'a', 'b', 'hung']);
    expect(queue.depth).toBe(0);
    queue.close();
  });

  it('says how many keys wait for a slot, by urgency', async () => {
    const queue = new WorkQueue(() => new Promise<void>(() => undefined), {
      concurrency: 1,
      baseDelayMs: 500,
      maxDelayMs: 30_000,
      stallMs: 60_000,
    });
    queue.add('running', 'change');
    for (const key of ['a', 'b', 'c']) queue.add(key, 'resync');
    queue.add('new', 'change');
    // 'running' holds the one slot and is not counted.
    expect(queue.waiting).toEqual({ change: 1, resync: 3 });
    queue.close();
    await jest.advanceTimersByTimeAsync(0);
  });

  it('serves a change before queued resync work', async () => {
    const started: string[] = [];
    const queue = new WorkQueue(
      (key) => {
        started.push(key);
        return Promise.resolve();
      },
      { concurrency: 1, baseDelayMs: 500, maxDelayMs: 30_000, resyncConcurrency: 1, resyncIntervalMs: 50 },
    );
    queue.add('r1', 'resync');
    queue.add('r2', 'resync');
    queue.add('r3', 'resync');
    queue.add('c', 'change');
    await jest.advanceTimersByTimeAsync(500);
    expect(started.indexOf('c')).toBeLessThan(started.indexOf('r2'));
    expect(new Set(started)).toEqual(new Set(['r1', 'r2', 'r3', 'c']));
    queue.close();
  });

  it('serves every paced resync key when a timer fires before the clock reaches the pace', async () => {
    // Node schedules a timer from the event loop's cached time, so it can fire a little before Date.now reaches
    // the time the pace was set for, and the clock moves on while the queue decides. Here each reading is 0 or
    // 1 ms behind the timers, drawn from a fixed sequence. A queue that read the clock twice in one decision could
    // find the pace not reached, then nothing left to wait for, and set no timer: a restarted controller's
    // catch-up then stayed queued until some unrelated event came (this sequence stops the old queue after 15).
    let seed = 7;
    const now = () => {
      seed = (seed * 1_103_515_245 + 12_345) % 2_147_483_648;
      return Date.now() - ((seed >> 16) % 2);
    };
    const started: string[] = [];
    const queue = new WorkQueue(
      (key) => {
        started.push(key);
        return Promise.resolve();
      },
      { concurrency: 8, baseDelayMs: 500, maxDelayMs: 30_000, resyncConcurrency: 2, resyncIntervalMs: 50, now },
    );
    const keys = Array.from({ length: 200 }, (_, i) => `ns/chart-${String(i)}`);
    for (const key of keys) queue.add(key, 'resync');
    // 50 ms apart, and up to 1 ms more each when a reading lags.
    await jest.advanceTimersByTimeAsync(200 * 51);
    expect(started).toHaveLength(200);
    expect(queue.waiting).toEqual({ change: 0, resync: 0 });
    queue.close();
  });
});

describe('resyncPace', () => {
  it.each<[string, [number, number, number, number], ReturnType<typeof resyncPace>]>([
    ['pace reached, a slot free', [1_000, 1_000, 1, 2], { allowed: true }],
    ['pace long passed', [5_000, 1_000, 0, 2], { allowed: true }],
    ['1 ms before the pace: wait 1 ms', [999, 1_000, 0, 2], { allowed: false, waitMs: 1 }],
    ['before the pace: wait for it', [960, 1_000, 1, 2], { allowed: false, waitMs: 40 }],
    ['every slot busy: a running resync pumps on its end', [5_000, 1_000, 2, 2], { allowed: false }],
    ['every slot busy before the pace', [960, 1_000, 2, 2], { allowed: false }],
  ])('%s', (_case, [now, nextAt, active, limit], expected) => {
    expect(resyncPace(now, nextAt, active, limit)).toEqual(expected);
  });
});
