/**
 * What the generator knows of a value it chose:
 * - valid: a chart made only of such values installs;
 * - invalid: the chart must be rejected (refused by the apiserver, or Failed=True with a reason), never Installed;
 * - odd: anything but silence is acceptable (helm may install it or fail on it).
 */
export type Verdict = 'valid' | 'invalid' | 'odd';

/** One field's choice: the value (undefined leaves the field out), what it is, and a short label for reports. */
export interface Choice<T = unknown> {
  value: T | undefined;
  verdict: Verdict;
  trait: string;
}

export type Expectation = 'installed' | 'rejected' | 'any';

/** The chart's expectation from its fields' verdicts: one invalid field rejects it, only valid ones install it. */
export function expectationOf(verdicts: readonly Verdict[]): Expectation {
  if (verdicts.includes('invalid')) return 'rejected';
  return verdicts.every((v) => v === 'valid') ? 'installed' : 'any';
}
