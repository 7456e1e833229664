// The two ways a chart workflow can wait for its Job, stripped of
// everything else so that only the waiting pattern is measured. Bundled by the bench's worker.
import { condition, defineSignal, proxyActivities, setHandler, type ActivityOptions } from '@temporalio/workflow';
import type { JobOutcome, WaitActivities } from './activities.js';

/** The retry shape of helmflow's Kubernetes activities (workflows/chart.ts `kubeCall`). */
const kubeCall: ActivityOptions = {
  startToCloseTimeout: '2 minutes',
  retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '1 minute' },
};

/** Design (b): what the controller's Job watch would send when it sees the Job finish. */
export const jobFinishedSignal = defineSignal<[JobOutcome]>('jobFinished');

/** Design (a), as helmflow does it: one activity per waiting Job, heartbeating until the Job finishes. */
export async function heartbeatWait(deadlineSeconds: number): Promise<JobOutcome> {
  const { awaitJob } = proxyActivities<WaitActivities>({
    ...kubeCall,
    // The options workflows/chart.ts gives awaitJob.
    startToCloseTimeout: `${deadlineSeconds + 120} seconds`,
    heartbeatTimeout: '30 seconds',
  });
  return awaitJob();
}

/**
 * Design (b): a durable timer plus the Job-status signal. Each time the timer fires, one short activity reads the
 * Job, so a lost signal delays a chart by at most one poll interval; no activity slot is held in between.
 * (The real design would also stop at the Job's deadline; no bench Job outlives it.)
 */
export async function timerSignalWait(pollSeconds: number): Promise<JobOutcome> {
  const { readJob } = proxyActivities<WaitActivities>(kubeCall);
  let outcome: JobOutcome | undefined;
  setHandler(jobFinishedSignal, (signalled) => {
    outcome ??= signalled;
  });
  for (;;) {
    await condition(() => outcome !== undefined, `${pollSeconds} seconds`);
    if (outcome !== undefined) return outcome;
    const read = await readJob();
    if (read !== undefined) return read;
  }
}
