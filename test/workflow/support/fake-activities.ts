import { Context } from '@temporalio/activity';
import type {
  ChartActivities,
  ChartTarget,
  CrdsHint,
  CrdsVerdict,
  JobOutcome,
  StartedJob,
  StatusUpdate,
  ChartEvent,
} from '../../../activities/types.js';
import { jobCreatedStatus } from '../../../activities/status-updates.js';

/** A promise a test resolves by hand: holds an activity open while the test acts. */
export class Deferred<T> {
  readonly promise: Promise<T>;
  resolve!: (value: T) => void;
  reject!: (reason: unknown) => void;
  constructor() {
    this.promise = new Promise<T>((resolve, reject) => {
      this.resolve = resolve;
      this.reject = reject;
    });
  }
}

/** An outcome that never comes: the wait ends only when Temporal cancels the activity (or its worker stops). */
export const never = (): Promise<JobOutcome> => new Promise<JobOutcome>(() => undefined);

/**
 * The calls of a plain uninstall, in order: stop the install Job, create and await the delete Job (with its
 * status write), clean up, release the finalizer.
 */
export const UNINSTALL_CALLS = [
  'deleteJob',
  'startDeleteJob',
  'setStatus',
  'awaitJob',
  'removeInstallObjects',
  'releaseFinalizer',
];

/** One call of awaitJob as the fake saw it. */
export interface AwaitRecord {
  jobUid: string;
  /** The activity's attempt (2+ when Temporal retried it, e.g. on another worker). */
  activityAttempt: number;
  /** How the wait ended: with an outcome, or cancelled by Temporal (a superseded attempt, a timeout, a shutdown). */
  ended: 'outcome' | 'cancelled' | undefined;
  /** The failed pods the workflow said were already reported (undefined: a wait for the end only). */
  failedPodsReported?: number;
}

/**
 * In-memory activities that steer the workflow's branches: each Job's outcome is decided by `outcomes`, which
 * a test may hold open (a Promise) to act while an attempt is waiting. Records every call for assertions.
 * A pending wait heartbeats, like the real one, so Temporal can deliver its cancellation.
 */
export class FakeCluster {
  chartPresent = true;
  refusal: { reason: string; message: string } | undefined;
  generation = 1;
  jobs: StartedJob[] = [];
  /** startInstallJob calls: which chart uid asked for which attempt. */
  installStarts: { uid: string; attempt: number }[] = [];
  deletedJobs: string[] = [];
  statuses: StatusUpdate[] = [];
  events: ChartEvent[] = [];
  calls: string[] = [];
  waits: AwaitRecord[] = [];
  finalizerReleased = false;
  /** The chart uids whose finalizer was released. */
  releasedUids: string[] = [];
  objectsRemoved = false;
  /** What recordRelease reports (the newest stored revision), and how often it was called. */
  release: { revision: number; status: string } | undefined = { revision: 1, status: 'deployed' };
  releaseReads = 0;
  /** Decides each install attempt's outcome (1-based count of install waits); default success. */
  installOutcome: (attempt: number) => Promise<JobOutcome> | JobOutcome = () => ({ outcome: 'succeeded' });
  deleteOutcome: () => Promise<JobOutcome> | JobOutcome = () => ({ outcome: 'succeeded' });
  /**
   * Makes an activity throw before it does anything (e.g. a permanentFailure, as a refusing apiserver would):
   * consulted on every call, so a test can fail the first call only.
   */
  throwIn: Partial<Record<keyof ChartActivities, () => Error | undefined>> = {};
  /**
   * Set: the chart is an upgrade with CRDs to compare first. prepareInstall then starts a crds Job unless the
   * workflow's hint says they were compared at this digest or the chart has none (as crdsStepOf decides), and
   * awaitChartCrds answers this (1-based count of its calls).
   */
  crdsVerdict: ((n: number) => CrdsVerdict) | undefined;
  /**
   * Set: the chart is chartContent, whose crds/ prepareInstall compares from its archive; answers what is behind
   * for its 1-based call (undefined: nothing), and a behind answer means no Job.
   */
  archiveBehind: ((n: number) => string | undefined) | undefined;
  private archiveChecks = 0;
  /** How many prepareInstall calls find no Job slot (each then waits in awaitJobSlot, as the real one). */
  slotlessPrepares = 0;
  /** What those noSlot answers say of the chart's place in line (absent, as answers recorded before it). */
  slotlessNearFront: boolean | undefined;
  /** Called by awaitJobSlot: a test may hold it open (a chart waiting for a slot). */
  onSlotWait: () => Promise<void> | void = () => undefined;
  /** The hint each prepareInstall call was given. */
  crdsHints: (CrdsHint | undefined)[] = [];
  /** The AwaitedJob.crdsCompared of each install wait. */
  crdsCompared: (boolean | undefined)[] = [];
  /** What each install wait says it read from the install Job's `crds` step. */
  installChartCrds: number | undefined;
  private crdsChecks = 0;
  /** Called by prepareInstall before it returns: a test may hold it open (e.g. to stop its worker meanwhile). */
  onPrepare: () => Promise<void> | void = () => undefined;

  /**
   * Holds prepareInstall open, as a step still creating its Job, until the Deferred it returns is resolved; then
   * `(Job created)` is logged among the calls.
   */
  holdJobCreation(): Deferred<void> {
    const creating = new Deferred<void>();
    this.onPrepare = async () => {
      await creating.promise;
      this.calls.push('(Job created)');
    };
    return creating;
  }
  /**
   * Called by setStatus before it returns, and by an install wait writing its success report: a test may hold a
   * status write open to act at that moment.
   */
  onStatus: (update: StatusUpdate) => Promise<void> | void = () => undefined;
  private installAttempts = 0;

  /** Names of the calls, in order, for the calls made after `since` (an index into `calls`). */
  callsSince(since: number): string[] {
    return this.calls.slice(since);
  }

  activities(): ChartActivities {
    const log = (name: string) => this.calls.push(name);
    const wait = async (
      jobUid: string,
      outcome: () => Promise<JobOutcome> | JobOutcome,
      failedPodsReported?: number,
    ): Promise<JobOutcome> => {
      const context = Context.current();
      const record: AwaitRecord = {
        jobUid,
        activityAttempt: context.info.attempt,
        ended: undefined,
        failedPodsReported,
      };
      this.waits.push(record);
      const beat = setInterval(() => {
        context.heartbeat({ jobUid });
      }, 100);
      try {
        const result = await Promise.race([Promise.resolve(outcome()), context.cancelled]);
        record.ended = 'outcome';
        return result;
      } catch (err) {
        record.ended = 'cancelled';
        throw err;
      } finally {
        clearInterval(beat);
      }
    };
    const startJob = (target: ChartTarget, attempt: number): StartedJob => {
      this.installStarts.push({ uid: target.uid, attempt });
      const job = {
        jobName: `helm-install-${target.ref.name}`,
        jobUid: `install-${attempt}`,
        digest: `digest-at-${attempt}`,
        deadlineSeconds: 600,
      };
      this.jobs.push(job);
      return job;
    };
    const activities: ChartActivities = {
      prepareInstall: async (target, attempt, crds) => {
        log('prepareInstall');
        this.crdsHints.push(crds);
        await this.onPrepare();
        if (!this.chartPresent) return { state: 'gone' };
        if (this.refusal !== undefined) return { state: 'refused', generation: this.generation, refusal: this.refusal };
        const digest = `digest-at-${attempt}`;
        if (this.slotlessPrepares > 0) {
          this.slotlessPrepares -= 1;
          const jobName = `helm-install-${target.ref.name}`;
          const near = this.slotlessNearFront === undefined ? {} : { nearFront: this.slotlessNearFront };
          return { state: 'noSlot', generation: this.generation, jobName, ...near };
        }
        if (this.archiveBehind !== undefined) {
          this.archiveChecks += 1;
          const behind = this.archiveBehind(this.archiveChecks);
          if (behind !== undefined) return { state: 'crdsStale', generation: this.generation, behind };
        }
        if (this.crdsVerdict !== undefined && crds?.checkedDigest !== digest && crds?.chartCrds !== false) {
          const crdsJob = {
            jobName: `helm-crds-${target.ref.name}`,
            jobUid: `crds-${attempt}`,
            digest,
            deadlineSeconds: 600,
          };
          this.statuses.push(jobCreatedStatus(crdsJob.jobName, attempt, this.generation));
          return { state: 'crdsCheck', generation: this.generation, job: crdsJob };
        }
        const job = startJob(target, attempt);
        // As the real one: JobCreated is written in the same step.
        this.statuses.push(jobCreatedStatus(job.jobName, attempt, this.generation));
        return { state: 'started', generation: this.generation, job };
      },
      awaitJobSlot: async () => {
        log('awaitJobSlot');
        await this.onSlotWait();
        return true;
      },
      awaitChartCrds: async () => {
        log('awaitChartCrds');
        this.crdsChecks += 1;
        const verdict = this.crdsVerdict?.(this.crdsChecks) ?? { state: 'unread', why: 'no verdict set' };
        if (verdict.state === 'stale') {
          this.statuses.push({
            conditions: [{ type: 'CRDsCurrent', status: 'False', reason: 'CRDsStale', message: verdict.behind }],
          });
          this.events.push({ type: 'Warning', reason: 'HelmChartCRDsStale', message: verdict.behind });
        }
        return verdict;
      },
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
        return startJob(target, attempt);
      },
      awaitJob: async (_ref, job) => {
        log('awaitJob');
        if (job.jobUid.startsWith('delete')) return wait(job.jobUid, () => this.deleteOutcome());
        this.installAttempts += 1;
        const n = this.installAttempts;
        this.crdsCompared.push(job.crdsCompared);
        const waited = await wait(job.jobUid, () => this.installOutcome(n), job.failedPodsReported);
        const chartCrds = this.installChartCrds;
        const outcome = chartCrds === undefined ? waited : { ...waited, chartCrds };
        // As the real one: the success report sent with the wait is written when the Job succeeds.
        if (outcome.outcome === 'succeeded' && job.installed !== undefined) {
          this.statuses.push(job.installed);
          await this.onStatus(job.installed);
        }
        return outcome;
      },
      deleteJob: async (_ref, jobName) => {
        log('deleteJob');
        this.deletedJobs.push(jobName);
      },
      setStatus: async (_t, update) => {
        log('setStatus');
        this.statuses.push(update);
        await this.onStatus(update);
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
      releaseFinalizer: async (target) => {
        log('releaseFinalizer');
        this.finalizerReleased = true;
        this.releasedUids.push(target.uid);
      },
      recordRelease: async () => {
        log('recordRelease');
        this.releaseReads += 1;
        return this.release === undefined ? { state: 'absent' } : { state: 'present', ...this.release };
      },
    };
    return this.throwing(activities);
  }

  /** Each activity first asks throwIn whether to fail (the call is still recorded in `calls`). */
  private throwing(activities: ChartActivities): ChartActivities {
    const wrapped: Record<string, (...args: never[]) => Promise<unknown>> = {};
    for (const [name, run] of Object.entries(activities) as [string, (...args: never[]) => Promise<unknown>][]) {
      wrapped[name] = async (...args) => {
        const error = this.throwIn[name as keyof ChartActivities]?.();
        if (error !== undefined) {
          this.calls.push(name);
          throw error;
        }
        return run(...args);
      };
    }
    return wrapped as unknown as ChartActivities;
  }
}
