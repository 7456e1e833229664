import { execFileSync } from 'node:child_process';
import { waitFor } from '../../src/devstack/wait.js';
import { buildChart } from './support/charts.js';
import { useHelmflow } from './support/helmflow.js';
import { apply, chartFailed, chartInstalled, helmChart, readHelmChart } from './support/helmcharts.js';
import { clients, freshNamespace } from './support/kube.js';

useHelmflow();

// With slow=true the chart holds a Deployment, which never becomes available here (no deployment controller):
// `helm upgrade --wait` keeps the release pending-upgrade for as long as its helm lives.
const chart = buildChart({
  name: 'stuck',
  templates: {
    'slow.yaml': `{{- if .Values.slow }}
apiVersion: apps/v1
kind: Deployment
metadata:
  name: {{ .Release.Name }}-slow
spec:
  selector: { matchLabels: { app: slow } }
  template:
    metadata: { labels: { app: slow } }
    spec: { containers: [{ name: slow, image: none, command: [sleep, "3600"] }] }
{{- end }}
`,
  },
});

/** The newest stored revision of a release, from its Secret's labels (as helm keeps it). */
async function newestRevision(
  namespace: string,
  release: string,
): Promise<{ revision: number; status: string } | undefined> {
  const list = await clients().core.listNamespacedSecret({ namespace, labelSelector: `owner=helm,name=${release}` });
  const revisions = list.items.map((s) => ({
    revision: Number(s.metadata?.labels?.version ?? 0),
    status: s.metadata?.labels?.status ?? '',
  }));
  return revisions.sort((a, b) => b.revision - a.revision)[0];
}

/** The host pids of the helm processes the native node runs for this release (`helm upgrade --install <name> … --namespace <ns>`). */
function helmPids(release: string, namespace: string): number[] {
  const ps = execFileSync('ps', ['-eo', 'pid=,args='], { encoding: 'utf8' });
  return ps
    .split('\n')
    .filter((line) => line.includes(`upgrade --install ${release} `) && line.includes(`--namespace ${namespace}`))
    .map((line) => Number(line.trim().split(/\s+/u)[0]));
}

describe('a release left pending by a helm that died', () => {
  it('is unlocked before the next attempt, with an Event, and the next install proceeds', async () => {
    const ns = await freshNamespace('stuck');
    const spec = { chartContent: chart.chartContent, timeout: '5m', backOffLimit: 0, failurePolicy: 'abort' };
    apply(helmChart(ns, 'stuck', { ...spec, set: { slow: 'false' } }));
    await chartInstalled(ns, 'stuck');

    apply(helmChart(ns, 'stuck', { ...spec, set: { slow: 'true' } }));
    await waitFor('revision 2 pending-upgrade', async () => {
      const newest = await newestRevision(ns, 'stuck');
      return newest?.revision === 2 && newest.status === 'pending-upgrade';
    });
    const pids = helmPids('stuck', ns);
    expect(pids).toHaveLength(1);
    process.kill(pids[0] ?? -1, 'SIGKILL');
    // The Job (backOffLimit 0) fails; failurePolicy abort holds it until the spec changes. Helm left the release locked.
    await chartFailed(ns, 'stuck');
    expect(await newestRevision(ns, 'stuck')).toEqual({ revision: 2, status: 'pending-upgrade' });

    apply(helmChart(ns, 'stuck', { ...spec, set: { slow: 'false' } }));
    const installed = await chartInstalled(ns, 'stuck');
    expect(installed.status?.conditions?.find((c) => c.type === 'Failed')?.status).toBe('False');
    const events = await clients().core.listNamespacedEvent({ namespace: ns });
    const unlocked = events.items.filter(
      (e) => e.involvedObject.name === 'stuck' && e.reason === 'HelmReleaseUnlocked',
    );
    expect(unlocked).toHaveLength(1);
    expect(unlocked[0]?.type).toBe('Warning');
    expect(unlocked[0]?.message).toContain(`release stuck in ${ns} was pending-upgrade at revision 2`);
    // Revision 2 is failed (what the unlock wrote), revision 3 deployed by the attempt after it.
    await waitFor('revision 3 deployed', async () => (await newestRevision(ns, 'stuck'))?.status === 'deployed');
    expect(await newestRevision(ns, 'stuck')).toEqual({ revision: 3, status: 'deployed' });
    const list = await clients().core.listNamespacedSecret({
      namespace: ns,
      labelSelector: 'owner=helm,name=stuck,version=2',
    });
    expect(list.items[0]?.metadata?.labels?.status).toBe('failed');
    await waitFor(
      'status.release at revision 3',
      async () => (await readHelmChart(ns, 'stuck'))?.status?.release?.revision === 3,
    );
  });
});
