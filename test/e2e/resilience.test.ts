// Kill the controller, the worker, the Temporal dev server and the kube-apiserver during an install (issue 5;
// test/e2e/seed-coverage.md, "Failures": a restart during a Job reruns it, and helm upgrade --install converges).
// Each test kills one component while a chart's install Job runs, and shows the chart converge once that component is
// back.
import { waitFor } from '../../src/lib/wait.js';
import { buildChart, releaseValues } from './support/charts.js';
import { crashComponent, restartStack } from './support/crash.js';
import { installCrds } from './support/crds.js';
import { helmflowSettings, spawnRole, startController, startWorker, type RunningRole } from './support/helmflow.js';
import { apply, chartInstalled, helmChart, readHelmChart, releaseRevisions } from './support/helmcharts.js';
import { jobFinished, jobSaid } from './support/jobs.js';
import { freshNamespace } from './support/kube.js';
import { pendingActivities, watchJobs, type JobLog } from './support/observe.js';

const chart = buildChart({ name: 'resilient', values: { greeting: 'from the chart' } });
const running: RunningRole[] = [];
const watches: JobLog[] = [];

beforeAll(async () => {
  await installCrds('helm.k3sm.io');
});
afterEach(async () => {
  for (const w of watches.splice(0)) w.stop();
  await Promise.all(running.splice(0).map((r) => r.stop()));
});

const spec = (greeting: string) => ({ chartContent: chart.chartContent, valuesContent: `greeting: ${greeting}\n` });

/**
 * Applies the chart and returns once its install Job exists and the chart says Installing: the workflow has
 * moved on to waiting for the Job (the awaitJob activity), the moment to kill something.
 */
async function applyAndAwaitJob(ns: string, name: string, greeting: string): Promise<JobLog> {
  const jobs = await watchJobs(ns);
  watches.push(jobs);
  apply(helmChart(ns, name, spec(greeting)));
  await waitFor(
    `HelmChart ${name} to be Installing with its Job created`,
    async () =>
      jobs.uidsOf(`helm-install-${name}`).length > 0 && (await readHelmChart(ns, name))?.status?.phase === 'Installing',
    { timeoutMs: 60_000, intervalMs: 50 },
  );
  return jobs;
}

/** chartInstalled, whose timeout also says which install it was and what its Job and pods last said. */
async function installedOrSay(ns: string, name: string, which: string) {
  try {
    return await chartInstalled(ns, name, 150_000);
  } catch (err) {
    throw new Error(`${which}: ${(err as Error).message}; ${await jobSaid(ns, `helm-install-${name}`)}`);
  }
}

describe('an install survives the death of', () => {
  it('the controller: a new one takes the Lease and installs what changed while none ran', async () => {
    const settings = helmflowSettings();
    running.push(startWorker(settings));
    const controller = spawnRole('controller', settings);
    try {
      await controller.printed('leading');
      const ns = await freshNamespace('kill-controller');
      await applyAndAwaitJob(ns, 'steady', 'first');
      await controller.kill();
      // The running install still completes: the workflow, not the controller, owns it.
      await chartInstalled(ns, 'steady');
      expect(await releaseValues(ns, 'steady')).toEqual(expect.objectContaining({ greeting: 'first' }));

      // A change made while no controller runs is picked up by the next one (after the killed one's Lease expires).
      apply(helmChart(ns, 'steady', spec('while no controller ran')));
      running.push(startController(settings));
      const installed = await chartInstalled(ns, 'steady');
      expect(installed.metadata.generation).toBe(2);
      expect(await releaseValues(ns, 'steady')).toEqual(
        expect.objectContaining({ greeting: 'while no controller ran' }),
      );
      expect(releaseRevisions(ns, 'steady').map((r) => r.status)).toEqual(['superseded', 'deployed']);
    } finally {
      await controller.kill();
    }
  });

  it('the worker: its Job finishes unobserved, and a new worker resumes the wait and marks the chart installed', async () => {
    const settings = helmflowSettings();
    running.push(startController(settings));
    const worker = spawnRole('worker', settings);
    try {
      const ns = await freshNamespace('kill-worker');
      const jobs = await applyAndAwaitJob(ns, 'patient', 'first');
      await waitFor(
        'the worker to be waiting for the Job (awaitJob started)',
        async () => (await pendingActivities(settings, ns, 'patient')).some((a) => a.type === 'awaitJob' && a.started),
        { timeoutMs: 30_000, intervalMs: 50 },
      );
      // SIGKILL: the worker reports nothing; its awaitJob activity is found dead by its heartbeat timeout.
      await worker.kill();
      expect((await jobFinished(ns, 'helm-install-patient')).type).toBe('Complete');
      // The Job is done, but only a worker can see it and say so.
      expect((await readHelmChart(ns, 'patient'))?.status?.phase).not.toBe('Installed');

      const restartedAt = Date.now();
      running.push(startWorker(settings));
      await chartInstalled(ns, 'patient', 150_000);
      console.log(
        `worker killed mid-install: Installed ${String(Date.now() - restartedAt)} ms after a new worker started`,
      );
      expect(await releaseValues(ns, 'patient')).toEqual(expect.objectContaining({ greeting: 'first' }));
      // The wait was resumed, not the install rerun: one Job, one helm revision.
      expect(jobs.uidsOf('helm-install-patient')).toHaveLength(1);
      expect(releaseRevisions(ns, 'patient')).toHaveLength(1);
    } finally {
      await worker.kill();
    }
  });

  it('the Temporal dev server: the chart converges once it is back, with a change made while it was down', async () => {
    const settings = helmflowSettings();
    running.push(startController(settings), startWorker(settings));
    const ns = await freshNamespace('kill-temporal');
    await applyAndAwaitJob(ns, 'durable', 'first');
    await crashComponent('temporal');
    try {
      expect((await jobFinished(ns, 'helm-install-durable')).type).toBe('Complete');
      // The status may already say Installed: a wait that was watching the Job writes its success report to
      // Kubernetes, not to Temporal. A change now must wait in the controller's queue until Temporal is back.
      apply(helmChart(ns, 'durable', spec('while Temporal was down')));
    } finally {
      // Restarts only what is missing; the SQLite file keeps the workflows.
      await restartStack();
    }
    const backAt = Date.now();
    const installed = await chartInstalled(ns, 'durable', 150_000);
    console.log(`Temporal restarted mid-install: converged ${String(Date.now() - backAt)} ms after it was back`);
    expect(installed.metadata.generation).toBe(2);
    expect(await releaseValues(ns, 'durable')).toEqual(
      expect.objectContaining({ greeting: 'while Temporal was down' }),
    );
    expect(releaseRevisions(ns, 'durable').at(-1)?.status).toBe('deployed');
  });

  it('the kube-apiserver: every watch comes back by itself, and a change made after it is back is installed', async () => {
    const settings = helmflowSettings();
    const controller = startController(settings);
    let controllerEnded = false;
    void controller.done.then(() => {
      controllerEnded = true;
    });
    running.push(controller, startWorker(settings));
    const ns = await freshNamespace('kill-apiserver');
    await applyAndAwaitJob(ns, 'watched', 'first');
    await crashComponent('kube-apiserver');
    try {
      // The controller's, the worker's and the native node's watches all fail now; the processes keep running.
      expect(controllerEnded).toBe(false);
    } finally {
      await restartStack();
    }
    const backAt = Date.now();
    await installedOrSay(ns, 'watched', 'the install the apiserver died under');
    // Only a controller whose HelmChart watch came back sees this change: the process was never restarted.
    apply(helmChart(ns, 'watched', spec('after the apiserver came back')));
    const installed = await installedOrSay(ns, 'watched', 'the change made after the apiserver was back');
    console.log(`kube-apiserver restarted mid-install: converged ${String(Date.now() - backAt)} ms after it was back`);
    expect(installed.metadata.generation).toBe(2);
    expect(await releaseValues(ns, 'watched')).toEqual(
      expect.objectContaining({ greeting: 'after the apiserver came back' }),
    );
    expect(controllerEnded).toBe(false);
  });
});
