import { GO_DURATION, matches } from './patterns.js';

const UNIT_SECONDS: Record<string, number> = {
  ns: 1e-9,
  us: 1e-6,
  µs: 1e-6,
  μs: 1e-6,
  ms: 1e-3,
  s: 1,
  m: 60,
  h: 3600,
};

/**
 * Seconds in a Go duration string (time.ParseDuration's syntax, unsigned), or undefined when it is not one.
 * helm reads spec.timeout with the same parser, so what passes here is what helm accepts.
 */
export function goDurationSeconds(text: string): number | undefined {
  if (!matches(GO_DURATION, text)) return undefined;
  let total = 0;
  for (const [, amount, unit] of text.matchAll(/([0-9]*[.]?[0-9]*)(ns|us|µs|μs|ms|s|m|h)/gu)) {
    total += Number(amount) * (UNIT_SECONDS[unit ?? ''] ?? Number.NaN);
  }
  return Number.isFinite(total) ? total : undefined;
}
