/**
 * What every step of the chart workflow shares: the activity options, the activities, and one chart's context
 * (its ref, the Temporal UI phase, status and Event writes, the Job wait). Deterministic, like the workflow.
 */
import { proxyActivities, upsertSearchAttributes, workflowInfo, type ActivityOptions } from '@temporalio/workflow';
import type { SearchAttributePair } from '@temporalio/common';
import type { ChartActivities, ChartEvent, ChartTarget, StartedJob, StatusUpdate } from '../activities/types.js';
import { chartSearchAttributes, phaseKey, type ChartRef, type Phase } from './contract.js';
import { permanentFailureOf } from './failures.js';
import type { ChartState } from './state.js';
import { eventSummary, statusSummary } from './summaries.js';

/**
 * A plain Kubernetes call. A transient error is retried by Temporal (with backoff): an apiserver outage only
 * delays a chart; a permanent one ends the step at once (activities/kube-errors.ts). The short start-to-close
 * timeout hands a call lost with its worker to another worker within seconds.
 */
export const kubeCall: ActivityOptions = {
  startToCloseTimeout: '20 seconds',
  retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '1 minute' },
};
/** A step that may wait (a Job being replaced or deleted): it heartbeats, so a lost worker shows within 10 s. */
export const waitingCall: ActivityOptions = {
  ...kubeCall,
  startToCloseTimeout: '3 minutes',
  heartbeatTimeout: '10 seconds',
};
export const activities = proxyActivities<ChartActivities>(kubeCall);

/**
 * Temporal task priority (1 is served first, 3 is the default) for the steps a person is waiting on: a cancel's
 * Job deletion and reports, a retry's reports. They go ahead of every other chart's work on the task queue where
 * the server's priority matcher is on (matching.useNewMatcher; off by default in Temporal 1.29 and on the
 * embedded stack, which ignores the key).
 */
export const PERSON_WAITING = { priority: { priorityKey: 1 } } satisfies ActivityOptions;

/** One chart's workflow context, handed to the install and uninstall steps. */
export interface ChartSteps {
  /**
   * The lean command shape (patch lean-chart-history, decided once per run): JobCreated written by
   * prepareInstall, the success report by the Job's wait, search attributes upserted only when they change.
   * Runs recorded before it replay the old shape.
   */
  lean: boolean;
  /**
   * True while a step that creates the install Job runs. A new spec, a delete and a Temporal cancel then wait for
   * it (install.ts, untilJobCreated): the step goes on on its worker after a cancel, and could create the Job after
   * the next step looked for it to delete.
   */
  creatingJob: boolean;
  ref: ChartRef;
  /** namespace/name, for summaries. */
  where: string;
  target: () => ChartTarget;
  setPhase: (phase: Phase) => void;
  /**
   * At the start of a run: the search attributes it lacks (one started without them, by an older controller),
   * the current phase only where none is set. The controller sets all three on start, and continue-as-new
   * carries them, so a lean run usually writes nothing here.
   */
  publishSearchAttributes: () => void;
  /** `extra`: options on top of a plain call's, e.g. {@link ChartSteps.personWaiting}. */
  setStatus: (target: ChartTarget, update: StatusUpdate, extra?: ActivityOptions) => Promise<void>;
  recordEvent: (target: ChartTarget, event: ChartEvent, extra?: ActivityOptions) => Promise<void>;
  /** PERSON_WAITING in a lean run; nothing in runs recorded before it. */
  personWaiting: ActivityOptions;
  /**
   * `failedPodsReported` defined: the wait also returns at each new failed pod (see install-wait.ts).
   * `installed`: the status the wait writes if the Job succeeds. `crdsCompared`: the attempt compared the chart's
   * crds/ before the Job, so the wait does not again.
   */
  awaitJob: (
    job: StartedJob,
    summary: string,
    failedPodsReported?: number,
    installed?: StatusUpdate,
    crdsCompared?: boolean,
  ) => ReturnType<ChartActivities['awaitJob']>;
  bestEffort: (report: () => Promise<void>) => Promise<void>;
}

/** Those of `wanted` the workflow does not carry yet: each upsert is a history event, so only changes are sent. */
export function changedSearchAttributes(wanted: SearchAttributePair[]): SearchAttributePair[] {
  const current = workflowInfo().typedSearchAttributes;
  return wanted.filter((pair) => current.get(pair.key) !== pair.value);
}

export function chartSteps(state: ChartState, lean: boolean): ChartSteps {
  const { ref } = state;
  const where = `${ref.namespace}/${ref.name}`;
  return {
    lean,
    creatingJob: false,
    ref,
    where,
    target: () => ({ ref, uid: state.uid ?? '' }),
    setPhase: (phase) => {
      state.phase = phase;
      const wanted = chartSearchAttributes(ref, phase);
      const changed = lean ? changedSearchAttributes(wanted) : wanted;
      if (changed.length > 0) upsertSearchAttributes(changed);
    },
    publishSearchAttributes: () => {
      if (!lean) {
        upsertSearchAttributes(chartSearchAttributes(ref, state.phase));
        return;
      }
      const hasPhase = workflowInfo().typedSearchAttributes.get(phaseKey) !== undefined;
      const missing = changedSearchAttributes(chartSearchAttributes(ref, state.phase)).filter(
        (pair) => pair.key !== phaseKey || !hasPhase,
      );
      if (missing.length > 0) upsertSearchAttributes(missing);
    },
    setStatus: (target, update, extra) =>
      activities.setStatus.executeWithOptions({ ...kubeCall, ...extra, summary: statusSummary(where, update) }, [
        target,
        update,
      ]),
    recordEvent: (target, event, extra) =>
      activities.recordEvent.executeWithOptions({ ...kubeCall, ...extra, summary: eventSummary(where, event) }, [
        target,
        event,
      ]),
    personWaiting: lean ? PERSON_WAITING : {},
    /** The wait is bounded by the Job's own deadline; heartbeats let a new worker take over a lost one. */
    awaitJob: (job, summary, failedPodsReported, installed, crdsCompared) =>
      activities.awaitJob.executeWithOptions(
        {
          ...kubeCall,
          summary,
          startToCloseTimeout: `${job.deadlineSeconds + 120} seconds`,
          heartbeatTimeout: '10 seconds',
        },
        [
          ref,
          {
            jobName: job.jobName,
            jobUid: job.jobUid,
            deadlineSeconds: job.deadlineSeconds,
            failedPodsReported,
            ...(installed === undefined ? {} : { installed }),
            ...(crdsCompared === true ? { crdsCompared } : {}),
          },
        ],
      ),
    /** Runs a report; one the apiserver refuses for good (e.g. in a namespace being deleted) is not worth a stall. */
    bestEffort: async (report) => {
      try {
        await report();
      } catch (err) {
        if (permanentFailureOf(err) === undefined) throw err;
      }
    },
  };
}
