import { afterEach, beforeEach, describe, expect, it, jest } from '@jest/globals';
import type { Informer, KubernetesObject } from '@kubernetes/client-node';
import { pino } from 'pino';
import { restartOnError, watchFailure } from '../../src/kube/restart-watch.js';

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

describe('watchFailure', () => {
  it("logs the apiserver's status, reason and message, not client-node's exception with its headers", () => {
    // The shape client-node's ApiException has (code, body as text), as a watch's list throws it.
    const thrown = Object.assign(
      new Error('HTTP-Code: 429\nMessage: Unknown API Status Code!\nBody: …\nHeaders: {"audit-id":"1a6e"}'),
      {
        code: 429,
        body: JSON.stringify({
          kind: 'Status',
          status: 'Failure',
          message: 'storage is (re)initializing',
          reason: 'TooManyRequests',
          code: 429,
        }),
      },
    );
    expect(watchFailure(thrown)).toEqual({
      status: 429,
      reason: 'TooManyRequests',
      err: 'storage is (re)initializing',
    });
  });

  it("keeps the first line of an error that is not the apiserver's", () => {
    expect(watchFailure(new Error('read ECONNRESET\n    at TLSWrap.onStreamRead'))).toEqual({ err: 'read ECONNRESET' });
  });
});
