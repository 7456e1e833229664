// What the objects beside a release cost its `helm upgrade --install --wait` (issue 10: helm in helmflow's Jobs cost
// more than the same command run directly, unless the releases went to a namespace apart from the HelmCharts'). On a
// fresh embedded stack of the bench's own, one namespace per kind of neighbour, each holding N of them before any
// helm runs:
//  - alone: nothing but the releases this bench installs (as the floor's namespace in bench/side-by-side.ts);
//  - chart archives: N ConfigMaps as helmflow writes a chartContent chart's `chart-content-<name>` (src/build), each
//    carrying the archive of the tiny chart bench/side-by-side.ts installs;
//  - small ConfigMaps: N ConfigMaps each holding what that chart's release holds (one small key), to tell how many
//    from how large;
//  - values Secrets: N Secrets as helmflow writes a chart's `chart-values-<name>`, each with one small values file.
// Owner references point at the namespace, which exists, so the garbage collector leaves the neighbours alone.
// Then R rounds, each installing one new release of that chart into every namespace with each of helm's wait
// strategies asked for, in an order turned each round: `--wait` alone (helm 4's watcher, which lists and watches the
// release's kinds across its namespace; what the install Jobs run) and `--wait=legacy` (helm 3's, which polls each
// of the release's objects, and had no other). Each helm process runs with fresh helm
// state, as an install Job's container does (bench/helm-run.ts). It prints, per namespace and wait, the median, min
// and max CPU seconds of the helm process and its apiserver requests (median).
// Run: npx tsx bench/crowded-namespace.ts [--neighbours N] [--rounds R] [--waits W]   (default 1000, 10 and
//   watcher,legacy; needs `npm run setup`;
//   HELMFLOW_TEST_STACK_DIR / HELMFLOW_TEST_PORT_OFFSET move its stack, default $TMPDIR/helmflow-bench-crowd-stack,
//   +3300)
import { rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { V1ConfigMap, V1OwnerReference, V1Secret } from '@kubernetes/client-node';
import { InvalidArgumentError } from 'commander';
import { pino } from 'pino';
import type { HelmChart } from '../src/api/index.js';
import { readPins } from '../src/config/pins.js';
import { chartContentConfigMap } from '../src/build/chart-content.js';
import { WAIT_STRATEGIES, waitArg, type WaitStrategy } from '../src/build/index.js';
import { valuesSecret } from '../src/build/values-secret.js';
import { startStack, stopStack } from '../src/devstack/stack.js';
import { benchCommand, wholeNumber } from './flags.js';
import type { HelmSample } from './helm-run.js';
import { median } from './median.js';

/** Parses `watcher,legacy` into helm wait strategies, or refuses it. */
function waitList(value: string): WaitStrategy[] {
  return value.split(',').map((w) => {
    const wait = WAIT_STRATEGIES.find((known) => known === w);
    if (wait === undefined) throw new InvalidArgumentError(`Expected ${WAIT_STRATEGIES.join(' or ')}, not ${w}.`);
    return wait;
  });
}

const { neighbours, rounds, waits } = benchCommand(
  'crowded-namespace',
  "What the objects beside a release cost helm's upgrade --install --wait (needs `npm run setup`)",
)
  .option('--neighbours <n>', 'objects of each kind in its namespace', wholeNumber(0), 1000)
  .option('--rounds <n>', 'rounds, each installing one release into every namespace', wholeNumber(1), 10)
  .option('--waits <list>', "helm's wait strategies to compare", waitList, [...WAIT_STRATEGIES])
  .parse()
  .opts<{ neighbours: number; rounds: number; waits: WaitStrategy[] }>();
process.env.HELMFLOW_TEST_STACK_DIR ??= path.join(tmpdir(), 'helmflow-bench-crowd-stack');
process.env.HELMFLOW_TEST_PORT_OFFSET ??= '3300';
const { buildChart } = await import('../test/e2e/support/charts.js');
const { clients, freshNamespace } = await import('../test/e2e/support/kube.js');
const { testLayout } = await import('../test/e2e/support/stack.js');
const { runHelm } = await import('./helm-run.js');

const layout = testLayout();
const log = pino({ level: 'warn' });
const group = 'helm.k3sm.io';
// The chart bench/side-by-side.ts installs: its release is one small ConfigMap.
const chart = buildChart({ name: 'tiny' });

/** A HelmChart as helmflow's builders take it, only to shape its objects; never applied. */
function chartOf(namespace: string, name: string): HelmChart {
  return {
    apiVersion: `${group}/v1`,
    kind: 'HelmChart',
    metadata: { name, namespace, uid: `bench-${name}`, generation: 1 },
    spec: { chartContent: chart.chartContent },
  };
}

/** The neighbour objects of one kind, named as helmflow would name chart `chart-<i>`'s. */
type Neighbours = (namespace: string, owner: V1OwnerReference, i: number) => V1ConfigMap | V1Secret;

const archive: Neighbours = (namespace, owner, i) => {
  const built = chartContentConfigMap(chartOf(namespace, `chart-${String(i)}`), group);
  if (built?.metadata === undefined) throw new Error('chart-content ConfigMap not built');
  built.metadata.ownerReferences = [owner];
  return built;
};
const smallConfigMap: Neighbours = (namespace, owner, i) => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name: `small-${String(i)}`, namespace, ownerReferences: [owner] },
  data: { greeting: 'hello' },
});
const values: Neighbours = (namespace, owner, i) => {
  const file = { key: 'values-01_HelmChart.yaml', path: 'values/values-01_HelmChart.yaml', content: 'a: b\n' };
  const built = valuesSecret(chartOf(namespace, `chart-${String(i)}`), group, [file]);
  if (built.metadata !== undefined) built.metadata.ownerReferences = [owner];
  return built;
};

const crowds: readonly { name: string; neighbours?: Neighbours }[] = [
  { name: 'alone' },
  { name: 'chart archives (chart-content ConfigMaps)', neighbours: archive },
  { name: 'small ConfigMaps', neighbours: smallConfigMap },
  { name: 'values Secrets', neighbours: values },
];

/** Creates the namespace and its neighbours, 20 requests at a time. */
async function crowdedNamespace(make: Neighbours | undefined, count: number): Promise<string> {
  const { core } = clients();
  const namespace = await freshNamespace('bench-crowd');
  if (make === undefined) return namespace;
  const { metadata } = await core.readNamespace({ name: namespace });
  const owner = { apiVersion: 'v1', kind: 'Namespace', name: namespace, uid: metadata?.uid ?? '' };
  for (let from = 0; from < count; from += 20) {
    const batch = Array.from({ length: Math.min(20, count - from) }, (_, k) => from + k);
    await Promise.all(
      batch.map((i) => {
        const body = make(namespace, owner, i);
        return body.kind === 'Secret'
          ? core.createNamespacedSecret({ namespace, body })
          : core.createNamespacedConfigMap({ namespace, body });
      }),
    );
  }
  return namespace;
}

await stopStack(layout, log);
rmSync(layout.stateDir, { recursive: true, force: true });
await startStack(layout, log);
try {
  const namespaces = [];
  for (const crowd of crowds)
    namespaces.push({ ...crowd, namespace: await crowdedNamespace(crowd.neighbours, neighbours) });
  const runs = namespaces.flatMap((crowd) => waits.map((wait) => ({ ...crowd, wait })));
  const rowOf = (run: { name: string; wait: WaitStrategy }) => `${run.name} | ${waitArg(run.wait)}`;
  const samples = new Map<string, HelmSample[]>(runs.map((r) => [rowOf(r), []]));
  for (let round = 0; round < rounds; round++) {
    for (let k = 0; k < runs.length; k++) {
      const run = runs[(round + k) % runs.length];
      if (run === undefined) continue;
      const release = `bench-${String(round)}-${run.wait}`;
      const args = ['upgrade', '--install', release, chart.path, '--namespace', run.namespace];
      samples.get(rowOf(run))?.push(runHelm([...args, waitArg(run.wait), '--timeout', '300s']));
    }
  }
  console.log(
    `\nhelm ${readPins().helm}, ${String(rounds)} rounds, a tiny chartContent chart whose release is one ConfigMap,` +
      ` ${String(neighbours)} neighbours of each kind\n`,
  );
  console.log(
    '| the release namespace holds | wait | helm upgrade CPU median | min | max | apiserver requests (median) |',
  );
  console.log('|---|---|---|---|---|---|');
  const fixed = (x: number) => `${x.toFixed(2)} s`;
  for (const [name, list] of samples) {
    const cpu = list.map((s) => s.cpu);
    const row = [name, fixed(median(cpu)), fixed(Math.min(...cpu)), fixed(Math.max(...cpu))];
    console.log(`| ${row.join(' | ')} | ${String(median(list.map((s) => s.requests)))} |`);
  }
} finally {
  await stopStack(layout, log);
}
