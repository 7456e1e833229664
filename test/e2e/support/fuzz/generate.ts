import type { Prng } from '../prng.js';
import {
  backOffLimitVariants,
  choose,
  driverVariants,
  failurePolicyVariants,
  otherVariants,
  serverSideVariants,
  sourceVariants,
  targetVariants,
  timeoutVariants,
  type FieldContext,
  type FuzzSources,
} from './fields.js';
import { setChoice, valuesChoice, valuesContentChoice, valuesSecretsChoice } from './values.js';
import { expectationOf, type Choice, type Expectation, type Verdict } from './verdicts.js';

/**
 * The longest HelmChart name whose derived names all fit: `helm-install-<name>` and `helm-delete-<name>` must be
 * 63-character labels (issue 8, point 1). Longer names must be refused.
 */
export const MAX_CHART_NAME = 50;

export interface FuzzCase {
  index: number;
  name: string;
  /** What was chosen, field by field: printed with every failure so the case reads without rerunning it. */
  traits: string[];
  chart: Record<string, unknown>;
  /** A HelmChartConfig of the same name, applied before the chart. */
  config?: Record<string, unknown>;
  /** What the config's own fields say: invalid means the apiserver must refuse it. */
  configVerdict?: Verdict;
  /** From the chart's fields alone; a config that is not refused adds its own verdict (see expectationFor). */
  chartVerdicts: Verdict[];
}

const LABEL_CHARS = 'abcdefghijklmnopqrstuvwxyz0123456789'.split('');
const ODD_CHARS: readonly (readonly [Verdict, string])[] = [
  ['invalid', 'A'],
  ['invalid', '_'],
  ['invalid', ' '],
  ['invalid', 'é'],
  ['invalid', ':'],
  ['odd', '.'],
  ['invalid', '/'],
  ['invalid', '*'],
  ['invalid', '🙂'],
];

/** A name of exactly `length` characters: a DNS label, or (when mutated) with one odd character somewhere. */
export function nameOf(r: Prng, length: number, mutate: boolean): Choice<string> {
  const chars = Array.from({ length }, () => r.pick(LABEL_CHARS));
  let verdict: Verdict = length > MAX_CHART_NAME ? 'invalid' : 'valid';
  let trait = `name=${length}`;
  if (mutate && (length === 1 || r.chance(0.8))) {
    const [oddVerdict, odd] = r.pick(ODD_CHARS);
    const at = r.int(0, length - 1);
    chars[at] = odd;
    // A dot is fine inside a DNS subdomain, not at either end.
    const edge = at === 0 || at === length - 1;
    verdict = verdict === 'invalid' || oddVerdict === 'invalid' || edge ? 'invalid' : 'odd';
    trait += `+${JSON.stringify(odd)}@${at}`;
  } else if (mutate) {
    chars[r.pick([0, length - 1])] = '-';
    verdict = 'invalid';
    trait += '+dash-at-edge';
  }
  return { value: chars.join(''), verdict, trait };
}

type Field = (r: Prng, ctx: FieldContext, validOnly: boolean) => Choice;
const variantsOf =
  (field: string, variants: Parameters<typeof choose>[3]): Field =>
  (r, ctx, validOnly) =>
    choose(r, ctx, field, variants, validOnly);

/** Fields merged into the spec as a group (source: chart/repo/version/chartContent; target; others). */
const mergedFields: Record<string, Field> = {
  source: variantsOf('source', sourceVariants),
  target: variantsOf('target', targetVariants),
  other: variantsOf('other', otherVariants),
};

/** Spec fields set one by one. */
const specFields: Record<string, Field> = {
  timeout: variantsOf('timeout', timeoutVariants),
  backOffLimit: variantsOf('backOffLimit', backOffLimitVariants),
  failurePolicy: variantsOf('failurePolicy', failurePolicyVariants),
  serverSide: variantsOf('serverSide', serverSideVariants),
  driver: variantsOf('driver', driverVariants),
  set: setChoice,
  valuesContent: valuesContentChoice,
  values: valuesChoice,
  valuesSecrets: valuesSecretsChoice,
};

const configFields: Record<string, Field> = {
  valuesContent: valuesContentChoice,
  values: valuesChoice,
  valuesSecrets: valuesSecretsChoice,
  failurePolicy: variantsOf('failurePolicy', failurePolicyVariants),
  serverSide: variantsOf('serverSide', serverSideVariants),
};

const shown = (choices: Choice[], prefix = '') =>
  choices
    .filter((c) => !c.trait.endsWith('=absent'))
    .map((c) => `${prefix}${c.trait}${c.verdict === 'invalid' ? '!' : c.verdict === 'odd' ? '?' : ''}`);

/** Each field chosen valid unless it is one of `mutated`, which may take any value. */
function chooseFields(r: Prng, ctx: FieldContext, fields: Record<string, Field>, mutated: Set<string>) {
  return Object.entries(fields).map(([field, make]) => [field, make(r, ctx, !mutated.has(field))] as const);
}

function verdictOf(choices: Choice[]): Verdict {
  const verdicts = choices.map((c) => c.verdict);
  return verdicts.includes('invalid') ? 'invalid' : verdicts.includes('odd') ? 'odd' : 'valid';
}

/**
 * One generated HelmChart (and for some a HelmChartConfig) in `namespace`, its name exactly `length` characters.
 * A quarter are valid throughout; the others get one to three fields (of name, source, spec and config) mutated.
 */
export function generateCase(
  r: Prng,
  sources: FuzzSources,
  namespace: string,
  index: number,
  length: number,
): FuzzCase {
  const ctx: FieldContext = { sources, namespace, index };
  const hasConfig = r.chance(0.25);
  const candidates = ['name', ...Object.keys(mergedFields), ...Object.keys(specFields)];
  if (hasConfig) candidates.push(...Object.keys(configFields).map((f) => `config.${f}`));
  const mutations = r.chance(0.25) ? 0 : r.pick([1, 1, 1, 2, 2, 3]);
  const mutated = new Set(r.shuffle(candidates).slice(0, mutations));
  const name = nameOf(r, length, mutated.has('name'));
  const merged = chooseFields(r, ctx, mergedFields, mutated).map(([, c]) => c);
  const fields = chooseFields(r, ctx, specFields, mutated);
  const spec: Record<string, unknown> = {};
  for (const c of merged) Object.assign(spec, c.value);
  for (const [field, c] of fields) if (c.value !== undefined) spec[field] = c.value;
  const chartChoices = [name, ...merged, ...fields.map(([, c]) => c)];
  const metadata = { name: name.value ?? '', namespace };
  const fuzzCase: FuzzCase = {
    index,
    name: metadata.name,
    traits: shown(chartChoices),
    chart: { apiVersion: 'helm.k3sm.io/v1', kind: 'HelmChart', metadata, spec },
    chartVerdicts: chartChoices.map((c) => c.verdict),
  };
  if (hasConfig) {
    const configMutated = new Set([...mutated].flatMap((m) => (m.startsWith('config.') ? [m.slice(7)] : [])));
    const config = chooseFields(r, ctx, configFields, configMutated);
    const configSpec: Record<string, unknown> = {};
    for (const [field, c] of config) if (c.value !== undefined) configSpec[field] = c.value;
    fuzzCase.config = { apiVersion: 'helm.k3sm.io/v1', kind: 'HelmChartConfig', metadata, spec: configSpec };
    fuzzCase.configVerdict = verdictOf(config.map(([, c]) => c));
    fuzzCase.traits.push(
      'config',
      ...shown(
        config.map(([, c]) => c),
        'config.',
      ),
    );
  }
  return fuzzCase;
}

/**
 * What the chart must do. A config the apiserver refused plays no part; one it accepted adds its verdict (a
 * config pointing at a missing Secret rejects the chart, a malformed one leaves it to helm).
 */
export function expectationFor(fuzzCase: FuzzCase, configRefused: boolean): Expectation {
  const verdicts = [...fuzzCase.chartVerdicts];
  if (fuzzCase.configVerdict !== undefined && !configRefused) verdicts.push(fuzzCase.configVerdict);
  return expectationOf(verdicts);
}

/**
 * `count` cases in batches of `batchSize`, names of every length 1–63 in a seeded order (each length once per
 * 63 cases), unique within a batch (one namespace per batch).
 */
export function* generateCases(
  r: Prng,
  sources: FuzzSources,
  namespaceOf: (batch: number) => string,
  count: number,
  batchSize: number,
): Generator<FuzzCase[]> {
  let lengths: number[] = [];
  for (let start = 0, batch = 0; start < count; start += batchSize, batch += 1) {
    const namespace = namespaceOf(batch);
    const used = new Set<string>();
    const cases: FuzzCase[] = [];
    for (let index = start; index < Math.min(count, start + batchSize); index += 1) {
      if (lengths.length === 0) lengths = r.shuffle(Array.from({ length: 63 }, (_, i) => i + 1));
      const length = lengths.pop() ?? 1;
      let fuzzCase = generateCase(r, sources, namespace, index, length);
      for (let tries = 0; used.has(fuzzCase.name) && tries < 20; tries += 1) {
        fuzzCase = generateCase(r, sources, namespace, index, length);
      }
      if (used.has(fuzzCase.name)) continue;
      used.add(fuzzCase.name);
      cases.push(fuzzCase);
    }
    yield cases;
  }
}
