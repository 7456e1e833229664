import type { V1ClusterRoleBinding } from '@kubernetes/client-node';
import { Client, Connection } from '@temporalio/client';
import { waitFor } from '../../src/lib/wait.js';
import { chartWorkflowId } from '../../workflows/contract.js';
import { buildChart } from './support/charts.js';
import { useHelmflow } from './support/helmflow.js';
import { holdsFor } from './support/observe.js';
import { apply, chartInstalled, helmChart, readHelmChart } from './support/helmcharts.js';
import { clients, freshNamespace, kubectl } from './support/kube.js';

const helmflow = useHelmflow();
const chart = buildChart({ name: 'owned' });
const uidLabel = 'helmcharts.helm.k3sm.io/uid';

async function bindingsOf(uid: string): Promise<V1ClusterRoleBinding[]> {
  return (await clients().rbac.listClusterRoleBinding({ labelSelector: `${uidLabel}=${uid}` })).items;
}

async function bindingsTo(namespace: string, serviceAccount: string): Promise<V1ClusterRoleBinding[]> {
  const all = (await clients().rbac.listClusterRoleBinding()).items;
  return all.filter((b) => b.subjects?.some((s) => s.namespace === namespace && s.name === serviceAccount));
}

/** The failures of the chart workflow's activities, as Temporal recorded them: type (the reason) and message. */
async function activityFailures(namespace: string, name: string): Promise<{ type: string; message: string }[]> {
  const { settings } = helmflow;
  const connection = await Connection.connect({ address: settings.temporalAddress });
  try {
    const client = new Client({ connection, namespace: settings.temporalNamespace });
    const id = chartWorkflowId({ group: settings.group, namespace, name });
    const events = (await client.workflow.getHandle(id).fetchHistory()).events ?? [];
    return events
      .map((e) => e.activityTaskFailedEventAttributes?.failure)
      .filter((f) => f !== undefined && f !== null)
      .map((f) => ({ type: f.applicationFailureInfo?.type ?? '', message: f.message ?? '' }));
  } catch {
    return [];
  } finally {
    await connection.close();
  }
}

describe('objects of derived names are never taken over', () => {
  it("leaves a user's ServiceAccount helm-<name> alone: ObjectNotOwned, no binding to it, no Job", async () => {
    const ns = await freshNamespace('notmine');
    const { core, batch } = clients();
    await core.createNamespacedServiceAccount({ namespace: ns, body: { metadata: { name: 'helm-x' } } });
    apply(helmChart(ns, 'x', { chartContent: chart.chartContent }));
    const failure = await waitFor(
      'the ObjectNotOwned failure',
      async () => (await activityFailures(ns, 'x')).find((f) => f.type === 'ObjectNotOwned'),
      { timeoutMs: 60_000, intervalMs: 500 },
    );
    expect(failure.message).toContain(`ServiceAccount ${ns}/helm-x`);
    expect(failure.message).toContain('Delete or rename that ServiceAccount');
    const sa = await core.readNamespacedServiceAccount({ name: 'helm-x', namespace: ns });
    expect(sa.metadata?.labels).toBeUndefined();
    expect(sa.metadata?.ownerReferences).toBeUndefined();
    expect(await bindingsTo(ns, 'helm-x')).toEqual([]);
    expect((await batch.listNamespacedJob({ namespace: ns })).items).toEqual([]);
    // Nor later: no retry of the step takes it over.
    await holdsFor(
      'the ServiceAccount untouched, unbound, and no Job',
      async () => {
        const now = await core.readNamespacedServiceAccount({ name: 'helm-x', namespace: ns });
        const jobs = await batch.listNamespacedJob({ namespace: ns });
        const bound = await bindingsTo(ns, 'helm-x');
        return now.metadata?.labels === undefined && bound.length === 0 && jobs.items.length === 0;
      },
      5_000,
    );
  });

  it('gives two charts whose seed binding names collide a binding each, kept through re-installs and deletes', async () => {
    // Namespace X-b chart c and namespace X chart b-c: both seed names are helm-X-b-c.
    const x = await freshNamespace('clash');
    const xb = `${x}-b`;
    await clients().core.createNamespace({ body: { metadata: { name: xb } } });
    const charts: { namespace: string; name: string }[] = [
      { namespace: xb, name: 'c' },
      { namespace: x, name: 'b-c' },
    ];
    const seedName = `helm-${x}-b-c`;
    const install = (greeting: string) => {
      for (const c of charts)
        apply(helmChart(c.namespace, c.name, { chartContent: chart.chartContent, valuesContent: `g: ${greeting}\n` }));
    };
    const check = async () => {
      const names: string[] = [];
      for (const c of charts) {
        const installed = await chartInstalled(c.namespace, c.name, 180_000);
        const bindings = await bindingsOf(installed.metadata.uid);
        expect(bindings).toHaveLength(1);
        expect(bindings[0]?.subjects).toEqual([
          expect.objectContaining({ kind: 'ServiceAccount', name: `helm-${c.name}`, namespace: c.namespace }),
        ]);
        names.push(bindings[0]?.metadata?.name ?? '');
      }
      // One keeps the seed's name, the other gets its own: helm-X-b-c-<hash>.
      expect(names).toContain(seedName);
      expect(names.find((n) => n !== seedName)).toMatch(new RegExp(`^${seedName}-[0-9a-f]{8}$`, 'u'));
      return names;
    };
    install('one');
    const first = await check();
    install('two');
    await waitFor('both charts at generation 2', async () => {
      const read = await Promise.all(charts.map((c) => readHelmChart(c.namespace, c.name)));
      return read.every((r) => r?.metadata.generation === 2) || undefined;
    });
    expect(await check()).toEqual(first);

    // Deleting the holder of the seed's name leaves the other chart's binding as it was.
    const holderIndex = first.indexOf(seedName);
    const [holder, other] = holderIndex === 0 ? [charts[0], charts[1]] : [charts[1], charts[0]];
    if (holder === undefined || other === undefined) throw new Error('two charts');
    const otherUid = (await readHelmChart(other.namespace, other.name))?.metadata.uid ?? '';
    expect(
      kubectl(['delete', 'helmcharts.helm.k3sm.io', holder.name, '-n', holder.namespace, '--wait=false']).status,
    ).toBe(0);
    await waitFor(
      'the deleted chart gone',
      async () => (await readHelmChart(holder.namespace, holder.name)) === undefined || undefined,
      { timeoutMs: 120_000 },
    );
    expect(await bindingsTo(holder.namespace, `helm-${holder.name}`)).toEqual([]);
    const left = await bindingsOf(otherUid);
    expect(left.map((b) => b.metadata?.name)).toEqual([first[charts.indexOf(other)]]);
    expect(left[0]?.subjects).toEqual([
      expect.objectContaining({ kind: 'ServiceAccount', name: `helm-${other.name}`, namespace: other.namespace }),
    ]);
  });
});
