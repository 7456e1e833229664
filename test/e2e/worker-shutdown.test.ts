import { hostname } from 'node:os';
import { waitFor } from '../../src/lib/wait.js';
import { SHUTDOWN_FORCE_SECONDS, SHUTDOWN_GRACE_SECONDS } from '../../src/worker/shutdown.js';
import { buildChart } from './support/charts.js';
import { installCrds } from './support/crds.js';
import { helmflowSettings, startController, type RunningRole } from './support/helmflow.js';
import { spawnHelmflow, type HelmflowProcess } from './support/helmflow-process.js';
import { apply, chartInstalled, helmChart } from './support/helmcharts.js';
import { freshNamespace, kubectl } from './support/kube.js';
import { pendingActivities, watchJobs, type PendingActivity } from './support/observe.js';

// helm's --wait holds the install Job until this Deployment is ready. The embedded stack runs no Deployment
// controller and the native node runs only helm Job pods, so nothing but the test makes it ready: the Job wait
// stays in flight exactly as long as the test needs, and no sleep stands in for "long enough".
const gatedChart = buildChart({
  name: 'gated',
  templates: {
    'gate.yaml': `apiVersion: apps/v1
kind: Deployment
metadata:
  name: {{ .Release.Name }}-gate
spec:
  replicas: 1
  selector: { matchLabels: { gate: {{ .Release.Name }} } }
  template:
    metadata: { labels: { gate: {{ .Release.Name }} } }
    spec:
      containers: [{ name: gate, image: none }]
`,
  },
});

/** Writes the status a Deployment controller would once its one replica is available: helm's wait ends. */
function openGate(namespace: string, release: string): void {
  const status = {
    observedGeneration: 1,
    replicas: 1,
    updatedReplicas: 1,
    readyReplicas: 1,
    availableReplicas: 1,
    conditions: [
      { type: 'Available', status: 'True', reason: 'MinimumReplicasAvailable' },
      { type: 'Progressing', status: 'True', reason: 'NewReplicaSetAvailable' },
    ],
  };
  const patched = kubectl([
    ...['patch', 'deployment', `${release}-gate`, '-n', namespace, '--subresource=status', '--type=merge'],
    ...['-p', JSON.stringify({ status })],
  ]);
  if (patched.status !== 0) throw new Error(`opening the gate: ${patched.stderr}`);
}

const identityOf = (worker: HelmflowProcess) => `${worker.child.pid ?? -1}@${hostname()}`;

describe('a SIGTERMed worker', () => {
  const roles: RunningRole[] = [];
  const workers: HelmflowProcess[] = [];
  afterAll(async () => {
    for (const role of roles) await role.stop();
    for (const worker of workers) await worker.kill();
  });

  it('hands its Job wait back and exits within its bound; another worker finishes the chart', async () => {
    await installCrds('helm.k3sm.io');
    const settings = helmflowSettings();
    roles.push(startController(settings));
    const a = spawnHelmflow('worker', settings);
    workers.push(a);
    await a.logged('worker running');

    const ns = await freshNamespace('shutdown');
    const jobs = await watchJobs(ns);
    apply(helmChart(ns, 'gated', { chartContent: gatedChart.chartContent }));
    const waitOn = async (test: (wait: PendingActivity) => boolean) =>
      (await pendingActivities(settings, ns, 'gated')).find((p) => p.type === 'awaitJob' && p.started && test(p));
    await waitFor(
      'worker A to be waiting on the install Job',
      () => waitOn((w) => w.lastWorkerIdentity === identityOf(a)),
      {
        timeoutMs: 120_000,
      },
    );

    // B polls the same task queue before A stops, as in a rolling update.
    const b = spawnHelmflow('worker', settings);
    workers.push(b);
    await b.logged('worker running');

    const sigterm = Date.now();
    await a.stop(); // SIGTERM; throws unless the exit code is 0
    const exitMs = Date.now() - sigterm;
    // A running activity gets the grace time; a cancelled wait ends at once, so A exits soon after the grace time
    // and well before the worker's forced shutdown (after which the process would exit 1).
    expect(exitMs).toBeGreaterThanOrEqual(SHUTDOWN_GRACE_SECONDS * 1000);
    expect(exitMs).toBeLessThan(SHUTDOWN_FORCE_SECONDS * 1000);

    // The wait came back to Temporal as a failed attempt (the SDK's WorkerShutdown), so its retry started on B at
    // once; a wait lost without a word would show a heartbeat timeout instead.
    const resumed = await waitFor(
      'worker B to resume the wait',
      () => waitOn((w) => w.lastWorkerIdentity === identityOf(b)),
      { timeoutMs: 60_000 },
    );
    expect(resumed.attempt).toBeGreaterThanOrEqual(2);
    expect(resumed.lastFailure?.kind).toBe('WorkerShutdown');
    const handOverMs = (resumed.lastStartedTime?.getTime() ?? Number.NaN) - (sigterm + exitMs);
    process.stdout.write(`worker A: SIGTERM to exit ${exitMs} ms; A's exit to B's resumed wait ${handOverMs} ms\n`);

    openGate(ns, 'gated');
    await chartInstalled(ns, 'gated', 60_000);
    // The same Job finished the install: the hand-back resumed its wait; nothing was reinstalled.
    expect(jobs.uidsOf('helm-install-gated')).toHaveLength(1);
    jobs.stop();
  });
});
