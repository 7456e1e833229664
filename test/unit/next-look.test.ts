import { getEventListeners } from 'node:events';
import { describe, expect, it, jest } from '@jest/globals';
import { CancelledFailure, Context } from '@temporalio/activity';
import { MockActivityEnvironment } from '@temporalio/testing';
import { nextLook } from '../../activities/next-look.js';

describe("a waiting step's wait for its next look", () => {
  it('waits the time asked', async () => {
    const started = performance.now();
    await new MockActivityEnvironment().run(() => nextLook(Context.current(), 50));
    // Timers may fire up to a millisecond early.
    expect(performance.now() - started).toBeGreaterThanOrEqual(49);
  });

  it('ends at once with the activity’s CancelledFailure when the activity is cancelled, as Context.sleep does', async () => {
    const env = new MockActivityEnvironment();
    const started = performance.now();
    const paused = env.run(() => nextLook(Context.current(), 60_000));
    env.cancel('CANCELLED');
    const failure: unknown = await paused.catch((err: unknown) => err);
    expect(failure).toBeInstanceOf(CancelledFailure);
    expect((failure as CancelledFailure).message).toBe('CANCELLED');
    expect(performance.now() - started).toBeLessThan(10_000);
  });

  // Context.sleep adds a handler to the activity's `cancelled` promise at each call, kept until the activity ends:
  // about 1.3 KiB a look, for a wait that looks once a second for minutes (bench/waiting-looks.ts measures it).
  it("attaches nothing to the activity's cancelled promise, and leaves no listener behind, once a wait is over", async () => {
    await new MockActivityEnvironment().run(async () => {
      const context = Context.current();
      const attached = jest.spyOn(context.cancelled, 'finally');
      const listeners = getEventListeners(context.cancellationSignal, 'abort').length;
      for (let i = 0; i < 3; i++) await nextLook(context, 1);
      expect(attached).not.toHaveBeenCalled();
      expect(getEventListeners(context.cancellationSignal, 'abort')).toHaveLength(listeners);
      // The SDK's sleep, for contrast: the spy sees the handler it attaches.
      await context.sleep(1);
      expect(attached).toHaveBeenCalledTimes(1);
    });
  });
});
