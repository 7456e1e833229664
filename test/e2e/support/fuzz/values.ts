import type { Prng } from '../prng.js';
import { choose, type FieldContext, type Variant } from './fields.js';
import type { Choice, Verdict } from './verdicts.js';

/** Secrets every fuzz namespace holds, so valuesSecrets can point at present, absent and broken ones. */
export const FUZZ_SECRETS = {
  good: { name: 'fuzz-values', data: { 'values.yaml': 'fromSecret: true\n' } },
  badYaml: { name: 'fuzz-bad-yaml', data: { 'values.yaml': 'a: [unclosed\n' } },
} as const;

/** A value helm reads as a render failure in the test chart (its `fail` value). */
const RENDER_FAILURE = 'fuzz render failure';

/** `set` keys: plain and dotted ones install; helm's --set syntax makes the others anyone's guess. */
const setKeys: readonly (readonly [Verdict, string])[] = [
  ['valid', 'replicas'],
  ['valid', 'greeting'],
  ['valid', 'image.tag'],
  ['valid', 'deeply.nested.key'],
  ['odd', 'list[0]'],
  ['odd', 'a[1].b'],
  ['odd', 'a,b'],
  ['odd', 'a\\.b'],
  ['odd', 'back\\slash'],
  ['odd', 'a=b'],
  ['odd', ''],
  ['odd', ' '],
  ['odd', 'ключ'],
  ['odd', 'trailing.'],
  ['odd', '[0]'],
  ['odd', 'a\\,b'],
  ['odd', 'a['],
  ['odd', 'a]'],
  ['odd', 'x'.repeat(300)],
];

/** `set` values of every type: integers and strings are what the field holds; anything else is refused. */
const setValues: readonly (readonly [Verdict, unknown])[] = [
  ['valid', 1],
  ['valid', 0],
  ['valid', -7],
  ['valid', 2147483647],
  ['odd', 9007199254740991],
  ['valid', 'hello'],
  ['valid', 'true'],
  ['valid', 'false'],
  ['valid', 'null'],
  ['valid', 'yes'],
  ['valid', '1.0'],
  ['valid', ''],
  ['valid', 'a,b,c'],
  ['valid', 'x\\,y'],
  ['valid', 'back\\slash'],
  ['valid', "quote\"s and 'apostrophes'"],
  ['valid', 'new\nline'],
  ['valid', '日本語'],
  ['valid', '{{ .Release.Name }}'],
  ['valid', '='],
  ['valid', '[1,2]'],
  ['valid', 'x'.repeat(5000)],
  ['invalid', 1.5],
  ['invalid', true],
  ['invalid', { nested: 1 }],
  ['invalid', [1, 2]],
  ['odd', null],
];

function setMap(r: Prng, validOnly: boolean): Choice<Record<string, unknown>> {
  const keyPool = validOnly ? setKeys.filter(([v]) => v === 'valid') : setKeys;
  const valuePool = validOnly ? setValues.filter(([v]) => v === 'valid') : setValues;
  const map: Record<string, unknown> = {};
  const verdicts: Verdict[] = [];
  const count = r.int(1, 5);
  for (let i = 0; i < count; i += 1) {
    const [keyVerdict, key] = r.pick(keyPool);
    const [valueVerdict, value] = r.pick(valuePool);
    map[key] = value;
    // A number under a key that is also a map's parent (image and image.tag) is helm's to judge.
    verdicts.push(keyVerdict, valueVerdict);
  }
  const verdict: Verdict = verdicts.includes('invalid') ? 'invalid' : verdicts.includes('odd') ? 'odd' : 'valid';
  // Two keys where one is the other's parent (a and a.b) make helm pick; mark it odd rather than guess.
  const keys = Object.keys(map);
  const nested = keys.some((k) => keys.some((o) => o !== k && o.startsWith(`${k}.`)));
  const shown = keys.map((k) => `${JSON.stringify(k).slice(0, 16)}:${map[k] === null ? 'null' : typeof map[k]}`);
  return { value: map, verdict: nested && verdict === 'valid' ? 'odd' : verdict, trait: `set={${shown.join(',')}}` };
}

export function setChoice(r: Prng, _ctx: FieldContext, validOnly = false): Choice<Record<string, unknown>> {
  if (r.chance(validOnly ? 0.6 : 0.1)) return { value: undefined, verdict: 'valid', trait: 'set=absent' };
  if (!validOnly && r.chance(0.1))
    return { value: { fail: RENDER_FAILURE }, verdict: 'odd', trait: 'set=render-failure' };
  if (r.chance(0.05)) {
    // Many keys at once: each is one --set or --set-string the Job must carry without its args growing past limits.
    const many = Object.fromEntries(
      Array.from({ length: 300 }, (_, i) => [`many.k${String(i)}`, i % 2 === 0 ? i : `v${String(i)}`]),
    );
    return { value: many, verdict: 'valid', trait: 'set=300-keys' };
  }
  return setMap(r, validOnly);
}

/** A valid YAML map of about `bytes` bytes (50 bytes a line). */
function largeYaml(bytes: number): string {
  const lines = Array.from(
    { length: Math.ceil(bytes / 50) },
    (_, i) => `k${String(i).padStart(7, '0')}: "${'v'.repeat(38)}"`,
  );
  return `${lines.join('\n')}\n`;
}

export function valuesContentChoice(r: Prng, ctx: FieldContext, validOnly = false): Choice<string | undefined> {
  return choose<string | undefined>(r, ctx, 'valuesContent', valuesContentVariants, validOnly);
}

const valuesContentVariants: readonly Variant<string | undefined>[] = [
  [10, 'valid', 'absent', () => undefined],
  [4, 'valid', 'small', () => 'greeting: from valuesContent\nnested:\n  list: [1, 2, 3]\n'],
  [1, 'valid', 'empty', () => ''],
  [1, 'valid', 'comments-only', () => '# nothing here\n'],
  [1, 'valid', 'large-100k', () => largeYaml(100_000)],
  [1, 'odd', 'large-900k', () => largeYaml(900_000)],
  [1, 'odd', 'over-1MiB', () => largeYaml(1_100_000)],
  [
    3,
    'odd',
    'malformed',
    (_, p) =>
      p.pick([
        'a: [unclosed',
        'a: b: c',
        '\tkey: tab',
        '- a top-level\n- list',
        '%%% not yaml',
        '{{',
        'key: !!binary zz',
        'just a string',
        'a: 1\na: 2\n',
        '? complex\n: key\n',
      ]),
  ],
  [1, 'odd', 'render-failure', () => `fail: ${RENDER_FAILURE}\n`],
];

const valuesVariants: readonly Variant<unknown>[] = [
  [12, 'valid', 'absent', () => undefined],
  [3, 'valid', 'map', () => ({ greeting: 'from values', n: 3, on: true, list: ['a', 1, null] })],
  [1, 'valid', 'deep', () => ({ a: { b: { c: { d: { e: { f: 'deep' } } } } } })],
  [1, 'odd', 'not-a-map', (_, p) => p.pick<unknown>([[1, 2], 'a string', 42, null, true])],
  [1, 'odd', 'render-failure', () => ({ fail: RENDER_FAILURE })],
];

export function valuesChoice(r: Prng, ctx: FieldContext, validOnly = false): Choice {
  return choose(r, ctx, 'values', valuesVariants, validOnly);
}

const { good, badYaml } = FUZZ_SECRETS;
const valuesSecretsVariants: readonly Variant<unknown>[] = [
  [14, 'valid', 'absent', () => undefined],
  [3, 'valid', 'present', () => [{ name: good.name, keys: ['values.yaml'] }]],
  [1, 'valid', 'missing-but-optional', () => [{ name: 'fuzz-missing', keys: ['values.yaml'], ignoreUpdates: true }]],
  [1, 'odd', 'no-keys', () => [{ name: 'fuzz-missing', keys: [] }]],
  [2, 'invalid', 'missing', () => [{ name: 'fuzz-missing', keys: ['values.yaml'] }]],
  [1, 'invalid', 'missing-key', () => [{ name: good.name, keys: ['absent.yaml'] }]],
  [1, 'odd', 'malformed-yaml', () => [{ name: badYaml.name, keys: ['values.yaml'] }]],
  [1, 'invalid', 'too-many', () => Array.from({ length: 21 }, () => ({ name: good.name, keys: ['values.yaml'] }))],
  [1, 'invalid', 'not-a-list', () => ({ name: good.name })],
];

export function valuesSecretsChoice(r: Prng, ctx: FieldContext, validOnly = false): Choice {
  return choose(r, ctx, 'valuesSecrets', valuesSecretsVariants, validOnly);
}
