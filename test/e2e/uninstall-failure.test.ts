import { waitFor } from '../../src/lib/wait.js';
import { buildChart } from './support/charts.js';
import { useHelmflow } from './support/helmflow.js';
import { apply, chartInstalled, helm, helmChart, readHelmChart } from './support/helmcharts.js';
import { clients, freshNamespace, kubectl } from './support/kube.js';

useHelmflow();

// A pre-delete hook that always fails makes `helm uninstall` fail, as a broken chart would.
const chart = buildChart({
  name: 'stubborn',
  templates: {
    'pre-delete.yaml': `apiVersion: batch/v1
kind: Job
metadata:
  name: {{ .Release.Name }}-refuse-delete
  annotations:
    helm.sh/hook: pre-delete
spec:
  backoffLimit: 0
  template:
    spec:
      restartPolicy: Never
      containers: [{ name: refuse, image: none, command: [sh, -c, "echo refusing to be deleted; exit 1"] }]
`,
  },
});

describe('an uninstall that fails', () => {
  it('still releases the finalizer, and a HelmChartUninstallFailed Warning names the release left behind', async () => {
    const ns = await freshNamespace('stubborn');
    apply(helmChart(ns, 'stubborn', { chartContent: chart.chartContent }));
    const installed = await chartInstalled(ns, 'stubborn');
    expect(kubectl(['delete', 'helmcharts.helm.k3sm.io', 'stubborn', '-n', ns, '--wait=false']).status).toBe(0);

    // The event outlives the chart: it is read once the HelmChart is gone.
    await waitFor('the HelmChart to be gone', async () => (await readHelmChart(ns, 'stubborn')) === undefined, {
      timeoutMs: 180_000,
    });
    const events = await clients().core.listNamespacedEvent({ namespace: ns });
    const failed = events.items.find(
      (e) => e.reason === 'HelmChartUninstallFailed' && e.involvedObject.uid === installed.metadata.uid,
    );
    expect(failed?.type).toBe('Warning');
    expect(failed?.message).toContain('release stubborn');
    expect(failed?.message).toContain(`helm uninstall stubborn -n ${ns}`);
    // The release remains, as the seed warns.
    expect(helm(['status', 'stubborn', '-n', ns]).status).toBe(0);
    // The uninstall never succeeded. Its pre-delete hook's pod is no helm Job pod, so the native node leaves it
    // unscheduled and helm waits on it: the uninstall fails or times out, both of which the seed covers.
    const deleteJob = await clients().batch.readNamespacedJob({ name: 'helm-delete-stubborn', namespace: ns });
    expect(deleteJob.status?.succeeded ?? 0).toBe(0);
    expect(failed?.message).toMatch(/did not finish \((UninstallTimedOut|BackoffLimitExceeded|DeadlineExceeded)\)/);
  });
});
