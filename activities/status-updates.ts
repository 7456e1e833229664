import type { StatusUpdate } from './types.js';
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
