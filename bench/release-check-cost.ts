// What the controller's release check costs as helm's release records pile up in one namespace. The check (a
// chart's first sight, each resync sweep, each chart of a restart's catch-up) lists one release's records by
// label. If the apiserver read such a list from etcd, it would read every Secret of the namespace, and a catch-up
// of N charts N² records; side by side, the same list asked of the apiserver's watch cache (NotOlderThan).
// Run: npx tsx bench/release-check-cost.ts [--releases 100,1000] [--record-kib 8] [--checks 200]
import { randomBytes } from 'node:crypto';
import { rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { CoreV1Api } from '@kubernetes/client-node';
import { pino } from 'pino';
import { shiftedPorts, StackLayout } from '../src/devstack/layout.js';
import { processesUnder } from '../src/devstack/process.js';
import { startStack, stopStack } from '../src/devstack/stack.js';
import { kubeConfigFromFile } from '../src/kube/client.js';
import { latestReleaseLabels } from '../src/kube/helm-releases.js';
import { releaseSelector } from '../src/release/record.js';
import { benchCommand, wholeNumber, wholeNumbers } from './flags.js';
import { cpuSeconds } from './proc.js';
import { percentile } from './helmflow-run.js';

const options = benchCommand('release-check-cost', "What the controller's release check costs as records pile up")
  .option('--releases <list>', 'release counts in the namespace, measured in turn', wholeNumbers(1), [100, 1000])
  .option(
    '--record-kib <n>',
    "each record's size (a small chart's is a few KiB, podinfo's about 10)",
    wholeNumber(1),
    8,
  )
  .option(
    '--checks <n>',
    'release checks timed at each count (two at a time, as the controller runs them)',
    wholeNumber(1),
    200,
  )
  .parse()
  .opts<{ releases: number[]; recordKib: number; checks: number }>();
const counts = options.releases;
const recordBytes = options.recordKib * 1024;
const checks = options.checks;

const layout = new StackLayout(path.join(tmpdir(), 'helmflow-bench-release-check'), shiftedPorts(4400));
const log = pino({ level: 'warn' });
await stopStack(layout, log);
rmSync(layout.stateDir, { recursive: true, force: true });
await startStack(layout, log);
const core = kubeConfigFromFile(layout.adminKubeconfig).makeApiClient(CoreV1Api);
const pidOf = (binary: string) => {
  const found = processesUnder(layout.stateDir).find((p) => path.basename(p.cmdline.split(' ')[0] ?? '') === binary);
  if (found === undefined) throw new Error(`no ${binary} under ${layout.stateDir}`);
  return found.pid;
};
const apiserver = pidOf('kube-apiserver');
const etcd = pidOf('etcd');
const namespace = 'release-check';
await core.createNamespace({ body: { metadata: { name: namespace } } });

/**
 * The watch-cache read asks for a state at least this new: a ConfigMap's resourceVersion written after the records,
 * as a HelmChart's would be (another resource, so the Secrets' cache must catch up to it).
 */
let newest = '';

/** helm's record of release r-<i>, revision 1, as the secret driver stores it (labels as helm sets them). */
async function storeRelease(i: number): Promise<void> {
  const name = `r-${String(i).padStart(5, '0')}`;
  await core.createNamespacedSecret({
    namespace,
    body: {
      metadata: {
        name: `sh.helm.release.v1.${name}.v1`,
        labels: { owner: 'helm', name, version: '1', status: 'deployed' },
      },
      type: 'helm.sh/release.v1',
      data: { release: randomBytes(recordBytes).toString('base64') },
    },
  });
}

type Check = (release: string) => Promise<unknown>;
const variants: [string, Check][] = [
  [
    'as the controller reads (no resourceVersion: a consistent read)',
    (release) => latestReleaseLabels(core, namespace, release),
  ],
  [
    'at a resourceVersion (NotOlderThan: from the watch cache)',
    (release) =>
      core.listNamespacedSecret({
        namespace,
        labelSelector: releaseSelector(release),
        resourceVersion: newest,
        resourceVersionMatch: 'NotOlderThan',
      }),
  ],
];

async function measure(stored: number, check: Check) {
  const releases = Array.from({ length: checks }, (_, i) => `r-${String(i % stored).padStart(5, '0')}`);
  const before = { apiserver: cpuSeconds(apiserver), etcd: cpuSeconds(etcd) };
  const started = performance.now();
  const times: number[] = [];
  const lane = async () => {
    for (let release = releases.shift(); release !== undefined; release = releases.shift()) {
      const t = performance.now();
      await check(release);
      times.push(performance.now() - t);
    }
  };
  await Promise.all([lane(), lane()]);
  const wall = (performance.now() - started) / 1000;
  times.sort((a, b) => a - b);
  return {
    wall,
    mean: times.reduce((a, b) => a + b, 0) / times.length,
    p95: percentile(times, 95),
    apiserver: cpuSeconds(apiserver) - before.apiserver,
    etcd: cpuSeconds(etcd) - before.etcd,
  };
}

console.log(`${String(checks)} release checks, two at a time, records of ${options.recordKib} KiB, one namespace`);
console.log(
  '| releases | read | wall | per check mean / p95 | kube-apiserver CPU | etcd CPU | catch-up of all, projected |',
);
console.log('|---|---|---|---|---|---|---|');
let storedCount = 0;
try {
  for (const count of counts) {
    for (; storedCount < count; storedCount += 8) {
      await Promise.all(
        Array.from({ length: Math.min(8, count - storedCount) }, (_, k) => storeRelease(storedCount + k)),
      );
    }
    storedCount = count;
    const marker = await core.createNamespacedConfigMap({
      namespace,
      body: { metadata: { name: `after-${String(count)}` } },
    });
    newest = marker.metadata?.resourceVersion ?? '';
    for (const [read, check] of variants) {
      const m = await measure(count, check);
      const projected = (m.wall / checks) * count;
      console.log(
        `| ${String(count)} | ${read} | ${m.wall.toFixed(1)} s | ${m.mean.toFixed(0)} / ${m.p95.toFixed(0)} ms | ` +
          `${m.apiserver.toFixed(1)} s | ${m.etcd.toFixed(1)} s | ${projected.toFixed(0)} s |`,
      );
    }
  }
} finally {
  await stopStack(layout, log);
  rmSync(layout.stateDir, { recursive: true, force: true });
}
