import type {
  ChartActivities,
  ChartTarget,
  JobOutcome,
  StartedJob,
  StatusUpdate,
  ChartEvent,
} from '../../../activities/types.js';

/**
 * In-memory activities that steer the workflow's branches: each Job's outcome is decided by `outcomes`, which
 * a test may hold open (a Promise) to act while an attempt is waiting. Records every call for assertions.
 */
export class FakeCluster {
  chartPresent = true;
  refusal: { reason: string; message: string } | undefined;
  generation = 1;
  jobs: StartedJob[] = [];
  deletedJobs: string[] = [];
  statuses: StatusUpdate[] = [];
  events: ChartEvent[] = [];
  calls: string[] = [];
  finalizerReleased = false;
  objectsRemoved = false;
  /** Decides each install attempt's outcome (1-based attempt number); default success. */
  installOutcome: (attempt: number) => Promise<JobOutcome> | JobOutcome = () => ({ outcome: 'succeeded' });
  deleteOutcome: () => Promise<JobOutcome> | JobOutcome = () => ({ outcome: 'succeeded' });
  private installAttempts = 0;

  activities(): ChartActivities {
    const log = (name: string) => this.calls.push(name);
    return {
      inspectChart: async () => {
        log('inspectChart');
        return this.chartPresent
          ? { state: 'present', generation: this.generation, deleting: false, refusal: this.refusal }
          : { state: 'gone' };
      },
      ensureIdentity: async () => void log('ensureIdentity'),
      ensureInstallInputs: async () => void log('ensureInstallInputs'),
      startInstallJob: async (target: ChartTarget, attempt: number) => {
        log('startInstallJob');
        const job = {
          jobName: `helm-install-${target.ref.name}`,
          jobUid: `install-${attempt}`,
          digest: `digest-at-${attempt}`,
          deadlineSeconds: 600,
        };
        this.jobs.push(job);
        return job;
      },
      awaitJob: async (_ref, job) => {
        log('awaitJob');
        if (job.jobUid.startsWith('delete')) return this.deleteOutcome();
        this.installAttempts += 1;
        return this.installOutcome(this.installAttempts);
      },
      deleteJob: async (_ref, jobName) => {
        log('deleteJob');
        this.deletedJobs.push(jobName);
      },
      setStatus: async (_t, update) => {
        log('setStatus');
        this.statuses.push(update);
      },
      recordEvent: async (_t, event) => {
        log('recordEvent');
        this.events.push(event);
      },
      recordInstallFailure: async (_t, jobName, reason) => {
        log('recordInstallFailure');
        this.events.push({ type: 'Warning', reason: 'HelmChartInstallFailed', message: `${jobName} ${reason}` });
      },
      startDeleteJob: async (target) => {
        log('startDeleteJob');
        return { jobName: `helm-delete-${target.ref.name}`, jobUid: 'delete-1', digest: '', deadlineSeconds: 600 };
      },
      recordUninstallFailure: async (_t, jobName, reason) => {
        log('recordUninstallFailure');
        this.events.push({ type: 'Warning', reason: 'HelmChartUninstallFailed', message: `${jobName} ${reason}` });
      },
      removeInstallObjects: async () => {
        log('removeInstallObjects');
        this.objectsRemoved = true;
      },
      releaseFinalizer: async () => {
        log('releaseFinalizer');
        this.finalizerReleased = true;
      },
    };
  }
}
