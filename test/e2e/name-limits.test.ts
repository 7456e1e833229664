import { Message, Reason } from '../../src/api/index.js';
import { clusterRoleBindingName, serviceAccountName, valuesSecretName } from '../../src/build/index.js';
import { waitFor } from '../../src/lib/wait.js';
import { buildChart } from './support/charts.js';
import { removeCrds } from './support/crds.js';
import { startHelmflow, type RunningHelmflow } from './support/helmflow.js';
import { apply } from './support/helmcharts.js';
import { clients, freshNamespace, kubectl } from './support/kube.js';
import { installPermissiveCrds } from './support/permissive-crds.js';

/**
 * Issue 8 point 1: a 52-character HelmChart, which k3s's permissive CRD lets through, got its ServiceAccount bound
 * to cluster-admin and then failed Job creation (helm-install-<name> is over 63 characters) forever, in silence,
 * and could not be deleted. helmflow must refuse it before creating anything, say why, and let it go.
 */

let helmflow: RunningHelmflow | undefined;
afterAll(async () => {
  await helmflow?.stop();
});

interface CattleChart {
  metadata: { deletionTimestamp?: string; finalizers?: string[] };
  status?: { conditions?: { type: string; status: string; reason?: string; message?: string }[] };
}

function readCattleChart(namespace: string, name: string): CattleChart | undefined {
  const out = kubectl(['get', 'helmcharts.helm.cattle.io', name, '-n', namespace, '-o', 'json']);
  return out.status === 0 ? (JSON.parse(out.stdout) as CattleChart) : undefined;
}

function exists(kind: string, name: string, namespace?: string): boolean {
  const where = namespace === undefined ? [] : ['-n', namespace];
  return kubectl(['get', kind, name, ...where, '--ignore-not-found', '-o', 'name']).stdout.trim() !== '';
}

describe('a name too long for its Job, past a k3s-style permissive CRD', () => {
  it('ends Failed/NameTooLong with no identity created, and deleting it ends', async () => {
    await installPermissiveCrds();
    const ns = await freshNamespace('long');
    const name = 'n'.repeat(52);
    apply({
      apiVersion: 'helm.cattle.io/v1',
      kind: 'HelmChart',
      metadata: { name, namespace: ns },
      spec: { chartContent: buildChart({ name: 'long' }).chartContent },
    });
    // helmflow re-applies its own (strict) CRDs when it leads, so it starts only after the chart exists.
    const started = Date.now();
    helmflow = startHelmflow({ group: 'helm.cattle.io' });
    // The bound covers helmflow's own start (its worker bundles the workflow code first).
    const failed = await waitFor(
      'Failed=True',
      () => readCattleChart(ns, name)?.status?.conditions?.find((c) => c.type === 'Failed' && c.status === 'True'),
      { timeoutMs: 180_000 },
    );
    console.log(`NameTooLong shown ${((Date.now() - started) / 1000).toFixed(1)} s after helmflow started`);
    expect(failed.reason).toBe(Reason.NameTooLong);
    expect(failed.message).toBe(Message.nameTooLong);

    // Nothing was created for it: no identity bound to cluster-admin, no values Secret, no Job.
    expect(exists('serviceaccount', serviceAccountName(name), ns)).toBe(false);
    expect(exists('clusterrolebinding', clusterRoleBindingName(ns, name))).toBe(false);
    expect(exists('secret', valuesSecretName(name), ns)).toBe(false);
    expect((await clients().batch.listNamespacedJob({ namespace: ns })).items).toEqual([]);

    // Deleting it ends: it is not left Terminating.
    expect(kubectl(['delete', 'helmcharts.helm.cattle.io', name, '-n', ns, '--wait=false']).status).toBe(0);
    await waitFor('the chart to be gone', () => readCattleChart(ns, name) === undefined || undefined, {
      timeoutMs: 120_000,
    });
    expect(exists('serviceaccount', serviceAccountName(name), ns)).toBe(false);
    expect(exists('clusterrolebinding', clusterRoleBindingName(ns, name))).toBe(false);

    await helmflow.stop();
    helmflow = undefined;
    await removeCrds('helm.cattle.io');
  }, 600_000);
});
