import { createHash } from 'node:crypto';
import { canonicalJson } from '../build/canonical-json.js';

type Values = Record<string, unknown>;

const isMap = (v: unknown): v is Values => v !== null && typeof v === 'object' && !Array.isArray(v);

/**
 * The release's computed values, as `helm get values --all` prints them: the chart's defaults with the supplied
 * values laid over them, maps merged key by key, a supplied null removing the default. Subcharts' own defaults
 * are not merged in (their values stay as supplied).
 */
export function computedValues(defaults: Values | undefined, supplied: Values | undefined): Values {
  const out: Values = { ...(defaults ?? {}) };
  for (const [key, value] of Object.entries(supplied ?? {})) {
    if (value === null) {
      Reflect.deleteProperty(out, key);
      continue;
    }
    const base = out[key];
    out[key] = isMap(value) && isMap(base) ? computedValues(base, value) : value;
  }
  return out;
}

/** sha256 (hex) of the values as canonical JSON (keys sorted): equal values always hash the same. */
export function valuesHash(values: Values): string {
  return createHash('sha256').update(canonicalJson(values)).digest('hex');
}
