import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { K3S_FINALIZER, UNINSTALL_FINALIZER } from '../../src/api/index.js';
import { uidLabelKey } from '../../src/build/labels.js';
import { waitFor } from '../../src/lib/wait.js';
import { buildChart, releaseValues } from './support/charts.js';
import { crdEstablished, removeCrds } from './support/crds.js';
import { startHelmflow, type RunningHelmflow } from './support/helmflow.js';
import { apply, helm, releaseRevisions } from './support/helmcharts.js';
import {
  ensureK3sHelmController,
  startK3sHelmController,
  type RunningK3sHelmController,
} from './support/k3s-helm-controller.js';
import { freshNamespace, kubectl } from './support/kube.js';
import { holdsFor } from './support/observe.js';
import { testLayout } from './support/stack.js';

/**
 * The migration from k3s's own helm-controller: k3s's real controller (built from its Go module) creates its CRDs,
 * takes a HelmChart (its managed-by annotation, its finalizer, its ServiceAccount, binding, values Secret,
 * ConfigMap and install Job); its Job cannot run on the native node, so the release is put in place with the
 * pinned helm as k3s's Job would have. Then k3s's controller stops, as k3s started with --disable-helm-controller,
 * and helmflow serving helm.cattle.io takes the chart over.
 */

interface CattleChart {
  metadata: { uid: string; finalizers?: string[]; annotations?: Record<string, string>; deletionTimestamp?: string };
  status?: { phase?: string; observedGeneration?: number; conditions?: { type: string; status: string }[] };
}

function readCattleChart(namespace: string, name: string): CattleChart | undefined {
  const out = kubectl(['get', 'helmcharts.helm.cattle.io', name, '-n', namespace, '-o', 'json']);
  return out.status === 0 ? (JSON.parse(out.stdout) as CattleChart) : undefined;
}

function readObject(kind: string, name: string, namespace?: string): Record<string, unknown> | undefined {
  const out = kubectl(['get', kind, name, ...(namespace === undefined ? [] : ['-n', namespace]), '-o', 'json']);
  return out.status === 0 ? (JSON.parse(out.stdout) as Record<string, unknown>) : undefined;
}

const labelsOf = (object: Record<string, unknown> | undefined) =>
  (object?.metadata as { labels?: Record<string, string> } | undefined)?.labels ?? {};

/** k3s's config hash of a Job's pod template, as its Job labels the release (a label value: at most 63). */
function configHashOf(job: Record<string, unknown>): string {
  const template = (job.spec as { template: { metadata: { annotations?: Record<string, string> } } }).template;
  const annotated = template.metadata.annotations?.['helmcharts.helm.cattle.io/configHash'] ?? '';
  return (annotated.split('=')[1] ?? '').slice(0, 63);
}

const NAME = 'adopted';
/** A chart k3s deployed and someone deleted between k3s's controller stopping and helmflow starting. */
const GONE = 'deleted-meanwhile';

let k3s: RunningK3sHelmController | undefined;
let helmflow: RunningHelmflow | undefined;

beforeAll(() => {
  // Cached after the first build (tools/build.sh, run by npm run setup); minutes on a cold Go cache.
  ensureK3sHelmController();
}, 900_000);

afterAll(async () => {
  await k3s?.stop();
  await helmflow?.stop();
});

describe('a drop-in for k3s helm-controller: charts k3s deployed are adopted', () => {
  it('adopts with at most one upgrade, uninstalls a chart deleted meanwhile, and a delete leaves no finalizer', async () => {
    const layout = testLayout();
    const ns = await freshNamespace('k3s-adopt');
    const chart = buildChart({ name: 'k3s-made', values: { greeting: 'chart default' } });
    const valuesContent = 'greeting: from k3s\n';

    // 1. k3s's helm-controller, as k3s runs it: it creates helm.cattle.io's CRDs and takes the chart.
    k3s = startK3sHelmController({
      kubeconfig: layout.adminKubeconfig,
      logFile: path.join(layout.logsDir, 'k3s-helm-controller.log'),
    });
    await crdEstablished('helmcharts.helm.cattle.io', 120_000);
    await crdEstablished('helmchartconfigs.helm.cattle.io', 120_000);
    for (const name of [NAME, GONE]) {
      apply({
        apiVersion: 'helm.cattle.io/v1',
        kind: 'HelmChart',
        metadata: { name, namespace: ns },
        spec: { chartContent: chart.chartContent, targetNamespace: ns, valuesContent },
      });
    }
    const k3sJobOf = (name: string) =>
      waitFor(
        `k3s's finalizer on ${name} and its install Job`,
        () => {
          const c = readCattleChart(ns, name);
          const job = readObject('job', `helm-install-${name}`, ns);
          return c?.metadata.finalizers?.includes(K3S_FINALIZER) === true && job !== undefined ? job : undefined;
        },
        { timeoutMs: 120_000 },
      );
    const k3sJob = await k3sJobOf(NAME);
    const goneJob = await k3sJobOf(GONE);
    await waitFor("k3s's ServiceAccount, binding and values Secret", () =>
      [
        readObject('serviceaccount', `helm-${NAME}`, ns),
        readObject('clusterrolebinding', `helm-${ns}-${NAME}`),
        readObject('secret', `chart-values-${NAME}`, ns),
      ].every((o) => o !== undefined),
    );

    // 2. The releases, as k3s's Jobs would have left them: the chart and values, labelled with k3s's config hash.
    const valuesFile = path.join(layout.stateDir, `k3s-adopt-${ns}-values.yaml`);
    writeFileSync(valuesFile, valuesContent);
    for (const [name, job] of [
      [NAME, k3sJob],
      [GONE, goneJob],
    ] as const) {
      const installed = helm([
        'upgrade',
        '--install',
        name,
        chart.path,
        '--namespace',
        ns,
        '--values',
        valuesFile,
        '--labels',
        `helmcharts.helm.cattle.io/configHash=${configHashOf(job)}`,
        '--wait',
      ]);
      expect(installed.stderr).toBe('');
      expect(releaseRevisions(ns, name)).toEqual([expect.objectContaining({ revision: 1, status: 'deployed' })]);
    }

    // 3. k3s started with --disable-helm-controller: its controller is gone; helmflow serves helm.cattle.io.
    await k3s.stop();
    k3s = undefined;
    // Deleted while no controller runs: it waits Terminating on k3s's finalizer for whoever keeps that promise.
    expect(kubectl(['delete', 'helmcharts.helm.cattle.io', GONE, '-n', ns, '--wait=false']).status).toBe(0);
    const started = Date.now();
    helmflow = startHelmflow({ group: 'helm.cattle.io' });
    const adopted = await waitFor(
      'helmflow to report the adopted chart Installed',
      () => {
        const c = readCattleChart(ns, NAME);
        const failed = c?.status?.conditions?.find((x) => x.type === 'Failed');
        return c?.status?.phase === 'Installed' && failed?.status === 'False' ? c : undefined;
      },
      { timeoutMs: 120_000, intervalMs: 300 },
    );
    const convergedSeconds = (Date.now() - started) / 1000;
    await waitFor(`${GONE}, deleted meanwhile, to be gone`, () => readCattleChart(ns, GONE) === undefined, {
      timeoutMs: 120_000,
      intervalMs: 300,
    });
    expect(helm(['status', GONE, '-n', ns]).status).not.toBe(0);
    expect(adopted.metadata.finalizers).toEqual(expect.arrayContaining([K3S_FINALIZER, UNINSTALL_FINALIZER]));
    // At most one upgrade: helmflow cannot check k3s's config hash, so it runs its own install once.
    const revisions = releaseRevisions(ns, NAME);
    expect(revisions.length).toBeLessThanOrEqual(2);
    expect(revisions.at(-1)?.status).toBe('deployed');
    await holdsFor('no further upgrade', () => releaseRevisions(ns, NAME).length === revisions.length, 10_000, 1_000);
    expect(await releaseValues(ns, NAME)).toEqual(expect.objectContaining({ greeting: 'from k3s' }));
    // k3s's objects of the derived names were adopted, not refused as someone else's (ObjectNotOwned).
    const uidLabel = uidLabelKey('helm.cattle.io');
    expect(labelsOf(readObject('serviceaccount', `helm-${NAME}`, ns))[uidLabel]).toBe(adopted.metadata.uid);
    expect(labelsOf(readObject('clusterrolebinding', `helm-${ns}-${NAME}`))[uidLabel]).toBe(adopted.metadata.uid);
    expect(labelsOf(readObject('secret', `chart-values-${NAME}`, ns))[uidLabel]).toBe(adopted.metadata.uid);

    // 4. Delete: the release is uninstalled and both finalizers go, so nothing is left Terminating.
    const deleting = Date.now();
    expect(kubectl(['delete', 'helmcharts.helm.cattle.io', NAME, '-n', ns, '--wait=false']).status).toBe(0);
    await waitFor('the adopted chart to be gone', () => readCattleChart(ns, NAME) === undefined, {
      timeoutMs: 120_000,
      intervalMs: 300,
    });
    const deleteSeconds = (Date.now() - deleting) / 1000;
    expect(helm(['status', NAME, '-n', ns]).status).not.toBe(0);
    expect(readObject('serviceaccount', `helm-${NAME}`, ns)).toBeUndefined();
    expect(readObject('clusterrolebinding', `helm-${ns}-${NAME}`)).toBeUndefined();
    expect(readObject('secret', `chart-values-${NAME}`, ns)).toBeUndefined();
    process.stderr.write(
      `k3s adoption: ${revisions.length - 1} upgrade(s); Installed ${convergedSeconds.toFixed(1)} s after helmflow ` +
        `started; the delete ended in ${deleteSeconds.toFixed(1)} s\n`,
    );
    await helmflow.stop();
    helmflow = undefined;
    await removeCrds('helm.cattle.io');
  });
});
