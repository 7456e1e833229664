import type { StatusUpdate } from '../activities/types.js';
import { FailedCondition, InstalledCondition, JobCreatedCondition } from '../src/api/reasons.js';

/** The status an install attempt writes once its Job exists: written by prepareInstall (lean runs) or the workflow. */
export function jobCreatedStatus(jobName: string, attempt: number, observedGeneration: number): StatusUpdate {
  return {
    jobName,
    phase: 'Installing',
    observedGeneration,
    conditions: [
      {
        type: JobCreatedCondition.type,
        status: 'True',
        reason: JobCreatedCondition.created,
        message: `${jobName} runs attempt ${attempt}`,
      },
    ],
  };
}

/**
 * The status of an attempt whose install Job was created suspended, waiting for one of the --max-running-jobs
 * slots (prepareInstall): JobCreated=True, as the Job exists, with the reason it does not run yet.
 */
export function jobQueuedStatus(
  jobName: string,
  attempt: number,
  observedGeneration: number,
  slots: { running: number; max: number },
): StatusUpdate {
  return {
    jobName,
    phase: 'Installing',
    observedGeneration,
    conditions: [
      {
        type: JobCreatedCondition.type,
        status: 'True',
        reason: JobCreatedCondition.waiting,
        message: `${jobName} (attempt ${attempt}) is created suspended: ${slots.running} of helmflow's install Jobs are running, the most --max-running-jobs (${slots.max}) allows; it starts when one ends`,
      },
    ],
  };
}

/** The status of an attempt whose Job succeeded: written by the Job's wait (lean runs) or the workflow. */
export function installedStatus(jobName: string, digest: string, observedGeneration: number): StatusUpdate {
  return {
    jobName,
    phase: 'Installed',
    digest,
    observedGeneration,
    conditions: [
      {
        type: FailedCondition.type,
        status: 'False',
        reason: InstalledCondition.succeeded,
        message: `${jobName} succeeded`,
      },
    ],
  };
}
