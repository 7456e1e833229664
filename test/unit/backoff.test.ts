import { reinstallBackoffSeconds } from '../../workflows/backoff.js';
import { defaultTuning, type Tuning } from '../../workflows/contract.js';

const tuning = (base: number, max: number): Tuning => ({
  ...defaultTuning,
  backoffBaseSeconds: base,
  backoffMaxSeconds: max,
});

describe('reinstallBackoffSeconds', () => {
  it.each([
    [0, 0],
    [-1, 0],
    [1, 1],
    [2, 2],
    [3, 4],
    [4, 4],
    [10, 4],
  ])('after %i failures waits %i s (base 1, cap 4)', (failures, seconds) => {
    expect(reinstallBackoffSeconds(failures, tuning(1, 4))).toBe(seconds);
  });

  it('doubles from the default base to the default cap: 10, 20, 40, 80, 160, 300, 300', () => {
    expect([1, 2, 3, 4, 5, 6, 7].map((f) => reinstallBackoffSeconds(f, defaultTuning))).toEqual([
      10, 20, 40, 80, 160, 300, 300,
    ]);
  });

  it('stays finite and capped after any number of failures', () => {
    for (const failures of [31, 64, 1_000, Number.MAX_SAFE_INTEGER]) {
      expect(reinstallBackoffSeconds(failures, defaultTuning)).toBe(300);
    }
  });

  it('never decreases as failures grow', () => {
    const waits = Array.from({ length: 40 }, (_, i) => reinstallBackoffSeconds(i, tuning(3, 1_000)));
    expect(waits).toEqual([...waits].sort((a, b) => a - b));
  });
});
