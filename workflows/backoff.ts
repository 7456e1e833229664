import type { Tuning } from './contract.js';

/**
 * The wait before reinstall attempt `failures + 1`: base × 2^(failures−1), capped, so a broken chart cannot spin.
 * Pure and deterministic, as workflow code must be.
 */
export function reinstallBackoffSeconds(failures: number, tuning: Tuning): number {
  if (failures <= 0) return 0;
  const exponent = Math.min(failures - 1, 30);
  return Math.min(tuning.backoffBaseSeconds * 2 ** exponent, tuning.backoffMaxSeconds);
}
