import { afterEach, beforeEach, describe, expect, it, jest } from '@jest/globals';
import type { Informer, KubernetesObject } from '@kubernetes/client-node';
import { pino } from 'pino';
import { restartOnError } from '../../src/kube/restart-watch.js';

/** Steers the branches: an informer whose first `failures` restarts reject, as a list does while the apiserver is down. */
function flakyInformer(failures: number) {
  const handlers: ((err: unknown) => void)[] = [];
  let starts = 0;
  const informer = {
    on: (verb: string, cb: (err: unknown) => void) => {
      if (verb === 'error') handlers.push(cb);
    },
    start: () => {
      starts += 1;
      return starts <= failures ? Promise.reject(new Error('connect ECONNREFUSED')) : Promise.resolve();
    },
  } as unknown as Informer<KubernetesObject>;
  return {
    informer,
    starts: () => starts,
    fail: () => {
      for (const handler of handlers) handler(new Error('watch closed'));
    },
  };
}

const log = pino({ level: 'silent' });

// Fake timers: the restart delay is advanced by the test, so no test waits on the clock.
describe('restartOnError', () => {
  beforeEach(() => {
    jest.useFakeTimers();
  });
  afterEach(() => {
    jest.useRealTimers();
  });

  it('restarts a failed watch, and keeps trying while the restart itself fails', async () => {
    const flaky = flakyInformer(3);
    restartOnError(flaky.informer, { what: 'test', log, stopped: () => false, delayMs: 5 });
    flaky.fail();
    expect(flaky.starts()).toBe(0);
    await jest.advanceTimersByTimeAsync(5);
    expect(flaky.starts()).toBe(1);
    // Three rejected restarts, then one that succeeds; nothing after it.
    await jest.advanceTimersByTimeAsync(100);
    expect(flaky.starts()).toBe(4);
  });

  it('does not restart a watch its owner stopped', async () => {
    const flaky = flakyInformer(0);
    let stopped = false;
    restartOnError(flaky.informer, { what: 'test', log, stopped: () => stopped, delayMs: 5 });
    stopped = true;
    flaky.fail();
    // A stop between the error and the timer must also win: fail while running, then stop before the delay.
    stopped = false;
    flaky.fail();
    stopped = true;
    await jest.advanceTimersByTimeAsync(100);
    expect(flaky.starts()).toBe(0);
  });
});
