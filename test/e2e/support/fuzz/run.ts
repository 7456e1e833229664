import { stringify } from 'yaml';
import type { HelmChart } from '../../../../src/api/index.js';
import { waitFor } from '../../../../src/lib/wait.js';
import { clients } from '../kube.js';
import { customApi } from '../helmcharts.js';
import type { FuzzSources } from './fields.js';
import { expectationFor, generateCases, type FuzzCase } from './generate.js';
import { bounded, kubectlAsync } from './kubectl.js';
import { refusedField, settledOutcome, silentOutcome, type Outcome } from './outcomes.js';
import type { FuzzHelmflow } from './processes.js';
import { Prng } from '../prng.js';
import { describeCase, outcomeTable, type CaseResult } from './table.js';
import { FUZZ_SECRETS } from './values.js';

export interface FuzzOptions {
  seed: number;
  count: number;
  batchSize: number;
  /** How long every chart of a batch has, from the batch's last apply, to be refused, Installed or Failed. */
  batchDeadlineMs: number;
  /** How long all charts of a batch have to be gone once deleted. */
  deleteDeadlineMs: number;
  /** kubectl processes at once. */
  concurrency: number;
  sources: FuzzSources;
  helmflow: FuzzHelmflow;
  log: (line: string) => void;
}

export interface FuzzReport {
  results: CaseResult[];
  /** Every broken promise, each naming the seed and the case: empty when the run passed. */
  violations: string[];
  table: string;
}

const group = 'helm.k3sm.io';

async function listCharts(namespace: string): Promise<HelmChart[]> {
  const list = (await customApi().listNamespacedCustomObject({
    group,
    version: 'v1',
    namespace,
    plural: 'helmcharts',
  })) as {
    items: HelmChart[];
  };
  return list.items;
}

async function prepareNamespace(namespace: string): Promise<void> {
  const { core } = clients();
  await core.createNamespace({ body: { metadata: { name: namespace } } });
  for (const secret of Object.values(FUZZ_SECRETS)) {
    await core.createNamespacedSecret({
      namespace,
      body: { metadata: { name: secret.name }, stringData: secret.data },
    });
  }
}

interface Applied {
  fuzzCase: FuzzCase;
  config?: string;
  refused?: { field: string; message: string };
  appliedAt: number;
}

// kubectl reads YAML 1.1, where an unquoted yes, on or y is a boolean: written as 1.1, every generated string stays
// a string (the generator's verdicts are about the values it chose, not about YAML's typing).
const apply = (object: Record<string, unknown>) =>
  kubectlAsync(
    ['apply', '--server-side', '--field-manager=helmflow-fuzz', '-f', '-'],
    stringify(object, { version: '1.1' }),
  );

async function applyCase(fuzzCase: FuzzCase, violations: string[], seed: number): Promise<Applied> {
  let config: string | undefined;
  if (fuzzCase.config !== undefined) {
    const result = await apply(fuzzCase.config);
    config = result.status === 0 ? 'accepted' : `refused: ${refusedField(result.stderr)}`;
    if (result.status !== 0 && result.stderr.trim() === '') {
      violations.push(`${describeCase(seed, fuzzCase)}: HelmChartConfig refused without a message`);
    }
  }
  const appliedAt = Date.now();
  const result = await apply(fuzzCase.chart);
  if (result.status === 0) return { fuzzCase, appliedAt, ...(config === undefined ? {} : { config }) };
  if (result.stderr.trim() === '') violations.push(`${describeCase(seed, fuzzCase)}: refused without a message`);
  const refused = { field: refusedField(result.stderr), message: result.stderr.trim() };
  return { fuzzCase, appliedAt, refused, ...(config === undefined ? {} : { config }) };
}

/** Polls the batch's charts until each has an outcome or the deadline passes; silent ones are recorded as such. */
async function observe(namespace: string, applied: Applied[], deadlineMs: number): Promise<CaseResult[]> {
  const waiting = new Set(applied.filter((a) => a.refused === undefined).map((a) => a.fuzzCase.name));
  const firstCondition = new Map<string, number>();
  const done = new Map<string, { outcome: Outcome; at: number }>();
  let last = new Map<string, HelmChart>();
  const until = Date.now() + deadlineMs;
  await waitFor(
    `the fuzz charts of ${namespace} to be listed`,
    async () => {
      last = new Map((await listCharts(namespace)).map((c) => [c.metadata.name, c]));
      const now = Date.now();
      for (const [name, chart] of last) {
        if (!waiting.has(name)) continue;
        if ((chart.status?.conditions?.length ?? 0) > 0 && !firstCondition.has(name)) firstCondition.set(name, now);
        const outcome = settledOutcome(chart);
        if (outcome !== undefined && !done.has(name)) done.set(name, { outcome, at: now });
      }
      return done.size === waiting.size || now >= until;
    },
    { timeoutMs: deadlineMs + 30_000, intervalMs: 1_000 },
  );
  return applied.map((a): CaseResult => {
    const base = { fuzzCase: a.fuzzCase, ...(a.config === undefined ? {} : { config: a.config }) };
    const expectation = expectationFor(a.fuzzCase, a.config?.startsWith('refused') === true);
    if (a.refused !== undefined) return { ...base, expectation, outcome: { kind: 'refused', ...a.refused } };
    const first = firstCondition.get(a.fuzzCase.name);
    const settled = done.get(a.fuzzCase.name);
    const since = (t: number | undefined) => (t === undefined ? {} : { seconds: (t - a.appliedAt) / 1000 });
    return {
      ...base,
      expectation,
      outcome: settled?.outcome ?? silentOutcome(last.get(a.fuzzCase.name)),
      ...(first === undefined ? {} : { firstConditionSeconds: since(first).seconds }),
      ...(settled === undefined ? {} : { settledSeconds: since(settled.at).seconds }),
    };
  });
}

/** The promises each case must keep: an outcome, and the one its fields call for. */
function caseViolations(seed: number, result: CaseResult): string[] {
  const what = describeCase(seed, result.fuzzCase);
  const { outcome, expectation } = result;
  if (outcome.kind === 'silent') {
    return [`${what}: silent at the deadline (phase ${outcome.phase}, conditions [${outcome.conditions}])`];
  }
  if (outcome.kind === 'failed' && outcome.message.trim() === '') {
    return [`${what}: ${outcome.type}=True/${outcome.reason} without a message`];
  }
  if (expectation === 'rejected' && outcome.kind === 'installed') {
    return [`${what}: must be refused or Failed, but was Installed`];
  }
  if (expectation === 'installed' && outcome.kind !== 'installed') {
    const detail =
      outcome.kind === 'refused' ? outcome.message : `${outcome.type}/${outcome.reason}: ${outcome.message}`;
    return [`${what}: must install, but was ${outcome.kind}: ${detail.slice(0, 400)}`];
  }
  return [];
}

/** Deletes every chart and config of the batch; returns the charts still present at the deadline. */
async function deleteAll(namespace: string, deadlineMs: number): Promise<HelmChart[]> {
  for (const kind of ['helmcharts', 'helmchartconfigs']) {
    const result = await kubectlAsync(['delete', `${kind}.${group}`, '--all', '-n', namespace, '--wait=false']);
    if (result.status !== 0) throw new Error(`kubectl delete ${kind} in ${namespace}: ${result.stderr}`);
  }
  const until = Date.now() + deadlineMs;
  let left: HelmChart[] = [];
  await waitFor(
    `the fuzz charts of ${namespace} to be gone`,
    async () => {
      left = await listCharts(namespace);
      return left.length === 0 || Date.now() >= until;
    },
    { timeoutMs: deadlineMs + 30_000, intervalMs: 1_000 },
  );
  return left;
}

async function runBatch(options: FuzzOptions, cases: FuzzCase[], violations: string[]): Promise<CaseResult[]> {
  const namespace = (cases[0]?.chart.metadata as { namespace: string }).namespace;
  await prepareNamespace(namespace);
  const applied = await bounded(
    options.concurrency,
    cases.map((c) => () => applyCase(c, violations, options.seed)),
  );
  const results = await observe(namespace, applied, options.batchDeadlineMs);
  for (const result of results) violations.push(...caseViolations(options.seed, result));
  const stuck = await deleteAll(namespace, options.deleteDeadlineMs);
  for (const chart of stuck) {
    violations.push(
      `seed ${options.seed}: ${namespace}/${chart.metadata.name} still present ${options.deleteDeadlineMs / 1000} s after delete ` +
        `(finalizers ${JSON.stringify(chart.metadata.finalizers ?? [])}, phase ${chart.status?.phase ?? '-'})`,
    );
  }
  violations.push(...(await options.helmflow.crashes()).map((c) => `seed ${options.seed}: ${c}`));
  return results;
}

/**
 * Generates `count` HelmCharts (and HelmChartConfigs for some) from `seed`, applies them with kubectl in batches,
 * and checks each is refused with a message, Installed or Failed with a reason by the deadline; then deletes them
 * and checks they are all gone and no process crashed.
 */
export async function runFuzz(options: FuzzOptions): Promise<FuzzReport> {
  const { seed, count, batchSize, log } = options;
  log(
    `helmflow fuzz: seed ${seed}, ${count} charts in batches of ${batchSize} (reproduce with --seed ${seed} --count ${count})`,
  );
  const run = Date.now().toString(36);
  const prng = new Prng(seed);
  const results: CaseResult[] = [];
  const violations: string[] = [];
  let batch = 0;
  for (const cases of generateCases(prng, options.sources, (b) => `fuzz-${seed}-${b}-${run}`, count, batchSize)) {
    const started = Date.now();
    const before = violations.length;
    const batchResults = await runBatch(options, cases, violations);
    results.push(...batchResults);
    // Each batch's table and violations as they come, so a run cut short still tells what it saw.
    log(outcomeTable(seed, batchResults));
    for (const violation of violations.slice(before)) log(`VIOLATION ${violation}`);
    log(
      `batch ${batch}: ${cases.length} charts in ${((Date.now() - started) / 1000).toFixed(0)} s; ${violations.length} violations so far`,
    );
    batch += 1;
  }
  const table = outcomeTable(seed, results);
  return { results, violations, table };
}
