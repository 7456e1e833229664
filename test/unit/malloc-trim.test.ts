import { setFlagsFromString } from 'node:v8';
import { pino } from 'pino';
import { runInNewContext } from 'node:vm';
import {
  quietEnoughToTrim,
  trimFreedMemory,
  trimFreedMemoryEvery,
  type TrimOutcome,
} from '../../src/app/malloc-trim.js';
import { waitFor } from '../../src/lib/wait.js';

setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;
const rssMiB = () => process.memoryUsage().rss / 2 ** 20;

/**
 * A burst of small native allocations, most of them freed while a few in between stay (returned, 1,500 of them):
 * glibc keeps the freed pages (it gives back only the top of a heap), as it kept what a burst of installs left in
 * helmflow.
 */
function burstMostlyFreed(): Buffer[] {
  const buffers = Array.from({ length: 150_000 }, () => Buffer.allocUnsafeSlow(1000));
  const kept = buffers.filter((_, i) => i % 100 === 0);
  buffers.length = 0;
  gc();
  gc();
  return kept;
}

describe('giving freed memory back', () => {
  it('returns the pages glibc kept after a burst, which it does not return on its own', async () => {
    const buffers = burstMostlyFreed();
    const kept = rssMiB();
    await expect(trimFreedMemory(pino({ level: 'silent' }))).resolves.toBe(true);
    const trimmed = rssMiB();
    expect(buffers).toHaveLength(1500);
    expect(kept - trimmed).toBeGreaterThan(60);
  });
});

describe('trimming once quiet', () => {
  // What the metrics are told (src/app/run.ts): the same burst, given back by the periodic trim of an idle process.
  it('trims at its first quiet look and hands on how long the call took and what it gave back', async () => {
    const buffers = burstMostlyFreed();
    let outcome: TrimOutcome | undefined;
    const trimming = trimFreedMemoryEvery(
      pino({ level: 'silent' }),
      (trimmed) => {
        outcome ??= trimmed;
      },
      250,
    );
    try {
      outcome = await waitFor('a trim at a quiet look', () => outcome, { timeoutMs: 60_000 });
    } finally {
      trimming.stop();
    }
    expect(buffers).toHaveLength(1500);
    expect(outcome.seconds).toBeGreaterThan(0);
    expect(outcome.seconds).toBeLessThan(60);
    expect(outcome.returnedBytes / 2 ** 20).toBeGreaterThan(60);
  });
});

describe('when freed memory is given back', () => {
  // A minute of 60 s of one core's CPU is 60,000,000 µs; quiet is at most a fifth of that.
  it.each([
    [0, 60_000, true],
    [12_000_000, 60_000, true],
    [12_000_001, 60_000, false],
    [60_000_000, 60_000, false],
    [120_000_000, 60_000, false],
    [1_000_000, 10_000, true],
    [3_000_000, 10_000, false],
  ])('after %i µs of CPU in %i ms: trim %s', (cpuMicros, everyMs, trim) => {
    expect(quietEnoughToTrim(cpuMicros, everyMs)).toBe(trim);
  });
});
