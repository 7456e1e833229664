// How a setting's text, from its flag or its environment variable, becomes its value. commander calls these for
// both; what they throw, it prints with the flag or variable the text came from.
import { InvalidArgumentError } from 'commander';
import { isApiGroup, type ApiGroup } from '../api/index.js';
import type { Tuning } from '../../workflows/contract.js';

/** How a setting's text (a flag's or an environment variable's) becomes its value; commander calls it for both. */
export type Parse<T> = (value: string) => T;

export const text: Parse<string> = (value) => value;
/**
 * A setting that may be left unset: its default is none (undefined) and an empty value means unset too
 * (`HELMFLOW_KUBECONFIG=` names no file). The parse keeps an empty value as '' (commander turns a parse's undefined
 * into '' anyway), and `given` (below) reads '' as unset.
 */
export function orEmpty<T>(parse: Parse<T>): Parse<T | ''> {
  return (value) => (value === '' ? '' : parse(value));
}

/** An optional setting's value: undefined when unset or empty. */
export const given = <T>(value: T | '' | undefined): T | undefined => (value === '' ? undefined : value);

/**
 * A whole number of at least `least`, or refused; the benches' flags and the long chaos and fuzz runs read theirs
 * with it too. Past 2^53 a number is not the one written (a seed would silently change), so it is refused.
 */
export function wholeNumber(least: number): Parse<number> {
  return (value) => {
    const n = Number(value);
    if (value.trim() === '' || !Number.isSafeInteger(n) || n < least) {
      throw new InvalidArgumentError(`Expected a whole number of at least ${String(least)}.`);
    }
    return n;
  };
}

export const port: Parse<number> = (value) => {
  const n = Number(value);
  if (value.trim() === '' || !Number.isInteger(n) || n < 0 || n > 65_535) {
    throw new InvalidArgumentError('Expected a port number.');
  }
  return n;
};

export const trueOrFalse: Parse<boolean> = (value) => {
  if (value === 'true' || value === 'false') return value === 'true';
  throw new InvalidArgumentError('Expected true or false.');
};

export const apiGroup: Parse<ApiGroup> = (value) => {
  if (!isApiGroup(value)) throw new InvalidArgumentError('Expected helm.k3sm.io or helm.cattle.io.');
  return value;
};

export const tuningJson: Parse<Partial<Tuning>> = (value) => {
  let parsed: unknown;
  try {
    parsed = JSON.parse(value);
  } catch (err) {
    throw new InvalidArgumentError(`Expected JSON: ${(err as Error).message}.`);
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
    throw new InvalidArgumentError('Expected a JSON object, such as {"backoffBaseSeconds":5}.');
  }
  return parsed;
};
