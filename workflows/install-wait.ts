import { patched, setCurrentDetails } from '@temporalio/workflow';
import type { JobOutcome, StartedJob } from '../activities/types.js';

/** One wait on the install Job; `failedPodsReported` undefined waits for its end only (the behaviour before this). */
export type WaitForJob = (summary: string, failedPodsReported: number | undefined) => Promise<JobOutcome>;

export type InstallJobEnd = Exclude<JobOutcome, { outcome: 'podFailed' }>;

/** What the Temporal UI says of an install Job whose pods fail: counts and an exit code, never helm's output. */
export function failedPodsDetails(jobName: string, failedPods: number, exitCode: number | undefined): string {
  const exit = exitCode === undefined ? 'no exit code' : `exit ${exitCode}`;
  return `${jobName}: ${failedPods} failed pod${failedPods === 1 ? '' : 's'}, last ${exit}`;
}

/**
 * Waits for the install Job to end while each of its failed pods is reported as it happens: the wait returns at
 * every new failed pod (already on the chart as a condition and an Event), the workflow's current details and the
 * next wait's summary say how many failed, and the wait resumes. History grows by one activity per failed pod.
 */
export async function awaitInstallJob(
  job: StartedJob,
  release: string,
  wait: WaitForJob,
  lean: boolean,
): Promise<InstallJobEnd> {
  const summary = `Wait for ${job.jobName}: helm upgrade --install ${release}`;
  // Workflows that were already waiting when this shipped keep waiting for the end only. A lean run (patch
  // lean-chart-history) always reports failed pods, and so needs no second marker for it.
  if (!lean && !patched('report-failed-install-pods')) return (await wait(summary, undefined)) as InstallJobEnd;
  let details: string | undefined;
  for (let reported = 0; ;) {
    const outcome = await wait(details === undefined ? summary : `${summary} (${details})`, reported);
    if (outcome.outcome !== 'podFailed') {
      if (details !== undefined) setCurrentDetails(outcome.outcome === 'succeeded' ? '' : `${details}; Job ended`);
      return outcome;
    }
    reported = outcome.failedPods;
    details = failedPodsDetails(job.jobName, outcome.failedPods, outcome.exitCode);
    setCurrentDetails(details);
  }
}
