import { waitFor } from '../../src/devstack/wait.js';
import { SHUTDOWN_FORCE_SECONDS, SHUTDOWN_GRACE_SECONDS } from '../../src/worker/worker.js';
import { buildChart } from './support/charts.js';
import { installCrds } from './support/crds.js';
import { helmflowSettings, startController, startWorker, type RunningRole } from './support/helmflow.js';
import { startHelmflowCli } from './support/helmflow-cli.js';
import { apply, chartInstalled, helmChart } from './support/helmcharts.js';
import { freshNamespace } from './support/kube.js';
import { pendingActivities } from './support/observe.js';
import { testLayout } from './support/stack.js';

// helm waits for a post-install hook Job: this one sleeps, so the install Job runs long enough for the worker
// to be stopped while it waits on it.
const slowChart = buildChart({
  name: 'slow-hook',
  templates: {
    'hook.yaml': `apiVersion: batch/v1
kind: Job
metadata:
  name: {{ .Release.Name }}-hook
  annotations:
    helm.sh/hook: post-install
    helm.sh/hook-delete-policy: hook-succeeded
spec:
  backoffLimit: 0
  template:
    spec:
      restartPolicy: Never
      containers: [{ name: wait, image: none, command: [sleep, "25"] }]
`,
  },
});

describe('a SIGTERMed worker', () => {
  const roles: RunningRole[] = [];
  afterAll(async () => {
    for (const role of roles) await role.stop();
  });

  it('hands its Job wait back and exits within its bound; the chart converges on another worker', async () => {
    await installCrds('helm.k3sm.io');
    const settings = helmflowSettings();
    roles.push(startController(settings));
    const worker = await startHelmflowCli('worker', [
      `--kubeconfig=${settings.kubeconfig ?? ''}`,
      `--temporal-address=${settings.temporalAddress}`,
      `--task-queue=${settings.taskQueue}`,
      `--api-server-port=${testLayout().ports.apiserver}`,
    ]);
    try {
      await worker.untilReady();
      const ns = await freshNamespace('shutdown');
      apply(helmChart(ns, 'slow', { chartContent: slowChart.chartContent }));
      await waitFor('the worker to be waiting on the install Job', async () =>
        (await pendingActivities(settings, ns, 'slow')).some((a) => a.type === 'awaitJob' && a.started),
      );

      const { code, ms } = await worker.terminate();
      process.stdout.write(`worker SIGTERM to exit while waiting on a Job: ${ms} ms\n`);
      expect(code).toBe(0);
      // Within the grace time plus a margin for closing, well inside the hard bound.
      expect(ms).toBeLessThan((SHUTDOWN_GRACE_SECONDS + 5) * 1000);
      expect(SHUTDOWN_GRACE_SECONDS).toBeLessThan(SHUTDOWN_FORCE_SECONDS);
      expect(worker.logLines(/worker shutting down/)).toHaveLength(1);

      roles.push(startWorker(settings));
      await chartInstalled(ns, 'slow', 180_000);
    } finally {
      worker.dispose();
    }
  });
});
