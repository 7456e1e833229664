// The fuzz suite's own logic (test/e2e/support/fuzz): the seeded generator covers what issue 8 lists, and the
// outcome table groups apiserver refusals by the field they name.
import { generateCases, type FuzzCase } from '../e2e/support/fuzz/generate.js';
import { refusedField } from '../e2e/support/fuzz/outcomes.js';
import { Prng } from '../e2e/support/prng.js';

const sources = { chartContent: 'Y2hhcnQ=', repoUrl: 'https://127.0.0.1:1', ociBase: 'oci://127.0.0.1:2/charts' };

function cases(seed: number, count: number): FuzzCase[] {
  return [...generateCases(new Prng(seed), sources, (b) => `fuzz-${String(b)}`, count, 25)].flat();
}

// Generating 500 cases makes megabytes of values: once for every test below.
let fiveHundred: FuzzCase[] | undefined;
const manyCases = () => (fiveHundred ??= cases(5, 500));

describe('the fuzz generator', () => {
  it('is the same for the same seed', () => {
    expect(cases(3, 50).map((c) => c.traits)).toEqual(cases(3, 50).map((c) => c.traits));
  });

  it('gives every name length 1–63 in each 63 cases, and names with odd characters', () => {
    const all = cases(11, 63);
    expect(new Set(all.map((c) => Array.from(c.name).length)).size).toBeGreaterThanOrEqual(62);
    const many = manyCases();
    expect(many.some((c) => /[^a-z0-9-]/u.test(c.name))).toBe(true);
  });

  it.each([
    ['durations', /^timeout=(duration|tiny|not-a-duration|number)/u],
    ['URLs with credentials and bad schemes', /^source=(repo-credentials|http-repo|garbage-repo|oci-credentials)/u],
    ['set keys with dots, commas, brackets and backslashes', /^set=\{.*(\[|,|\\\\|\.)/u],
    ['large values', /^valuesContent=(large-100k|large-900k|over-1MiB)|^set=300-keys/u],
    ['malformed values', /^valuesContent=malformed/u],
    ['missing Secrets', /^valuesSecrets=(missing|missing-key)/u],
    ['HelmChartConfigs', /^config$/u],
    ['reserved k3s fields', /^other=reserved-field/u],
  ])('generates %s', (_what, trait) => {
    expect(manyCases().some((c) => c.traits.some((t) => trait.test(t)))).toBe(true);
  });
});

describe('refusedField', () => {
  it.each([
    [
      'The HelmChart "a_b" is invalid: <nil>: Invalid value: "object": metadata.name must be a DNS label',
      'metadata.name',
    ],
    [
      'The HelmChart "x" is invalid: spec.set.image.tag: Invalid value: "number": integers or strings',
      'spec.set.image.tag',
    ],
    [
      'The HelmChart "x" is invalid: \n* spec.timeout: Invalid value: "string": bad\n* <nil>: Invalid value: "object": metadata.name too long',
      'spec.timeout, metadata.name',
    ],
    [
      'The HelmChart "x" is invalid: [spec.timeout: Invalid value: "string": bad, spec.backOffLimit: Invalid value: -1: >= 0]',
      'spec.timeout, spec.backOffLimit',
    ],
    ['The HelmChart "x" is invalid: spec: Invalid value: "object": spec.repoCA is a reserved k3s field', 'spec.repoCA'],
    [
      'The HelmChart "x" is invalid: \n* spec.set.a: Invalid value: "boolean": must be integer,string\n* <nil>: Invalid value: null: some validation rules were not checked because the object was invalid',
      'spec.set.a',
    ],
    [
      'Error from server: failed to create typed patch object (ns/x; helm.k3sm.io/v1, Kind=HelmChart): .spec.backOffLimit: expected numeric (int or float), got string',
      'spec.backOffLimit',
    ],
    [
      'Error from server (BadRequest): error when creating "STDIN"\nmore',
      'Error from server (BadRequest): error when creating "STDIN"',
    ],
  ])('%s → %s', (message, field) => {
    expect(refusedField(message)).toBe(field);
  });
});
