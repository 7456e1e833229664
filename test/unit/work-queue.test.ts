import { afterEach, beforeEach, describe, expect, it, jest } from '@jest/globals';
import { StalledWork, WorkQueue } from '../../src/controller/work-queue.js';

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
});
