import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { trimFreedMemory } from '../../src/app/malloc-trim.js';

setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;
const rssMiB = () => process.memoryUsage().rss / 2 ** 20;

describe('giving freed memory back', () => {
  // A burst of small native allocations, most of them freed while a few in between stay: glibc keeps the freed
  // pages (it gives back only the top of a heap), as it kept what a burst of installs left in helmflow.
  it('returns the pages glibc kept after a burst, which it does not return on its own', async () => {
    let buffers: Buffer[] = Array.from({ length: 150_000 }, () => Buffer.allocUnsafeSlow(1000));
    buffers = buffers.filter((_, i) => i % 100 === 0);
    gc();
    gc();
    const kept = rssMiB();
    await expect(trimFreedMemory()).resolves.toBe(true);
    const trimmed = rssMiB();
    expect(buffers).toHaveLength(1500);
    expect(kept - trimmed).toBeGreaterThan(60);
  });
});
