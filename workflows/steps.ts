/**
 * What every step of the chart workflow shares: the activity options, the activities, and one chart's context
 * (its ref, the Temporal UI phase, status and Event writes, the Job wait). Deterministic, like the workflow.
 */
import { proxyActivities, upsertSearchAttributes, type ActivityOptions } from '@temporalio/workflow';
import type { ChartActivities, ChartEvent, ChartTarget, StartedJob, StatusUpdate } from '../activities/types.js';
import { chartNameKey, chartNamespaceKey, phaseKey, type ChartRef, type Phase } from './contract.js';
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
export const act = proxyActivities<ChartActivities>(kubeCall);

/** One chart's workflow context, handed to the install and uninstall steps. */
export interface ChartSteps {
  ref: ChartRef;
  /** namespace/name, for summaries. */
  where: string;
  target: () => ChartTarget;
  setPhase: (phase: Phase) => void;
  setStatus: (t: ChartTarget, update: StatusUpdate) => Promise<void>;
  recordEvent: (t: ChartTarget, event: ChartEvent) => Promise<void>;
  /** `failedPodsReported` defined: the wait also returns at each new failed pod (see install-wait.ts). */
  awaitJob: (job: StartedJob, summary: string, failedPodsReported?: number) => ReturnType<ChartActivities['awaitJob']>;
  bestEffort: (report: () => Promise<void>) => Promise<void>;
}

export function chartSteps(s: ChartState): ChartSteps {
  const { ref } = s;
  const where = `${ref.namespace}/${ref.name}`;
  return {
    ref,
    where,
    target: () => ({ ref, uid: s.uid ?? '' }),
    setPhase: (phase) => {
      s.phase = phase;
      upsertSearchAttributes([
        { key: chartNamespaceKey, value: ref.namespace },
        { key: chartNameKey, value: ref.name },
        { key: phaseKey, value: phase },
      ]);
    },
    setStatus: (t, update) =>
      act.setStatus.executeWithOptions({ ...kubeCall, summary: statusSummary(where, update) }, [t, update]),
    recordEvent: (t, event) =>
      act.recordEvent.executeWithOptions({ ...kubeCall, summary: eventSummary(where, event) }, [t, event]),
    /** The wait is bounded by the Job's own deadline; heartbeats let a new worker take over a lost one. */
    awaitJob: (job, summary, failedPodsReported) =>
      act.awaitJob.executeWithOptions(
        {
          ...kubeCall,
          summary,
          startToCloseTimeout: `${job.deadlineSeconds + 120} seconds`,
          heartbeatTimeout: '10 seconds',
        },
        [ref, { jobName: job.jobName, jobUid: job.jobUid, deadlineSeconds: job.deadlineSeconds, failedPodsReported }],
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
