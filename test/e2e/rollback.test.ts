import { waitFor } from '../../src/lib/wait.js';
import { buildChart } from './support/charts.js';
import { installCrds } from './support/crds.js';
import { startHelmflow } from './support/helmflow.js';
import { apply, chartInstalled, helm, helmChart, readHelmChart } from './support/helmcharts.js';
import { clients, freshNamespace, kubectl } from './support/kube.js';

describe("rolling back: the seed's manual clean-up of a HelmChart stuck Terminating", () => {
  it('works with the names helmflow uses, and leaves the release installed as the seed warns', async () => {
    await installCrds('helm.k3sm.io');
    const helmflow = startHelmflow();
    const ns = await freshNamespace('rollback');
    apply(helmChart(ns, 'left', { chartContent: buildChart({ name: 'left' }).chartContent }));
    await chartInstalled(ns, 'left');
    // "A k3sm release without HelmChart support": no controller runs any more.
    await helmflow.stop();
    expect(kubectl(['delete', 'helmcharts.helm.k3sm.io', 'left', '-n', ns, '--wait=false']).status).toBe(0);
    const stuck = await readHelmChart(ns, 'left');
    expect(stuck?.metadata.deletionTimestamp).toBeDefined();
    expect(stuck?.metadata.finalizers).toEqual(['helm.k3sm.io/uninstall']);
    // What the seed's commands clean up exists under these names now, so each command below has work to do.
    const { core, rbac } = clients();
    const account = await core.readNamespacedServiceAccount({ name: 'helm-left', namespace: ns });
    expect(account.metadata?.ownerReferences?.map((o) => o.uid)).toEqual([stuck?.metadata.uid]);
    const binding = await rbac.readClusterRoleBinding({ name: `helm-${ns}-left` });
    expect(binding.subjects).toEqual([expect.objectContaining({ name: 'helm-left', namespace: ns })]);

    // The seed's three commands, verbatim but for the names and the last one's --ignore-not-found (see below).
    const patch = kubectl([
      'patch',
      'helmcharts.helm.k3sm.io',
      'left',
      '-n',
      ns,
      '--type',
      'merge',
      '-p',
      '{"metadata":{"finalizers":null}}',
    ]);
    expect(patch.status).toBe(0);
    await waitFor('the HelmChart to be gone', async () => (await readHelmChart(ns, 'left')) === undefined);
    // The ClusterRoleBinding cannot be owned by a namespaced HelmChart: without the controller's cleanup it stays.
    expect(kubectl(['delete', 'clusterrolebinding', `helm-${ns}-left`]).status).toBe(0);
    // The ServiceAccount is owned by the HelmChart, so the garbage collector may have taken it already.
    expect(kubectl(['delete', 'serviceaccount', 'helm-left', '-n', ns, '--ignore-not-found']).status).toBe(0);
    await waitFor(
      'the ServiceAccount to be gone',
      () => kubectl(['get', 'serviceaccount', 'helm-left', '-n', ns]).status !== 0,
    );
    expect(helm(['status', 'left', '-n', ns]).status).toBe(0);
  });
});
