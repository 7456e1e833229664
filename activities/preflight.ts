import type { V1Job } from '@kubernetes/client-node';
import {
  DryRunRenderedCondition,
  SourceAccessibleCondition,
  classifyPreflightFailure,
  type ApiGroup,
  type PreflightFailure,
} from '../src/api/index.js';
import { PREFLIGHT_CONTAINER, PREFLIGHT_SKIP, preflightAnnotationKey, skipsPreflight } from '../src/build/index.js';
import type { ActivityDeps } from './deps.js';
import { recordRepeatedEvent } from './events.js';
import { podLogTail, type FailedPod } from './failed-pods.js';
import { setStatus } from './status.js';
import type { ChartTarget, ConditionUpdate } from './types.js';

/** What each failed pre-flight condition tells a user, before helm's own words. */
const headline: Record<PreflightFailure['condition'], string> = {
  [SourceAccessibleCondition.type]: 'could not fetch the chart',
  [DryRunRenderedCondition.type]: 'fetched the chart but could not render it against the cluster',
};

function conditionsOf(failure: PreflightFailure, sentence: string): ConditionUpdate[] {
  const failed: ConditionUpdate = {
    type: failure.condition,
    status: 'False',
    reason: failure.reason,
    message: sentence,
  };
  if (failure.condition === DryRunRenderedCondition.type) {
    return [fetched('pre-flight fetched the chart'), failed];
  }
  return [
    failed,
    {
      type: DryRunRenderedCondition.type,
      status: 'Unknown',
      reason: DryRunRenderedCondition.notFetched,
      message: 'not rendered: the chart could not be fetched',
    },
  ];
}

const fetched = (message: string): ConditionUpdate => ({
  type: SourceAccessibleCondition.type,
  status: 'True',
  reason: SourceAccessibleCondition.accessible,
  message,
});

/**
 * A pod of the install Job failed in pre-flight, so nothing was applied: the condition helm's error points at
 * (SourceAccessible or DryRunRendered) goes False with its reason and helm's message, and one Warning Event per
 * reason counts the pods that failed so. helm's words come from the init container's termination message (the
 * tail of its log on any kubelet), else from its log; they go to Kubernetes only, never to Temporal.
 */
export async function reportPreflightFailed(
  deps: ActivityDeps,
  target: ChartTarget,
  job: { jobName: string; jobUid: string },
  failedPods: number,
  pod: FailedPod & { preflight: NonNullable<FailedPod['preflight']> },
): Promise<void> {
  const { namespace } = target.ref;
  const output = pod.preflight.message ?? (await podLogTail(deps, namespace, pod.name, PREFLIGHT_CONTAINER));
  const failure = classifyPreflightFailure(output);
  const where = `${job.jobName} pre-flight (pod ${pod.name}, exit ${pod.preflight.exitCode})`;
  const sentence = `${where} ${headline[failure.condition]}; nothing was applied and the Job retries: ${failure.message}`;
  await setStatus(deps, target, { conditions: conditionsOf(failure, sentence) });
  await recordRepeatedEvent(
    deps,
    target,
    { type: 'Warning', reason: failure.reason, message: sentence },
    { jobUid: job.jobUid, failedPods },
  );
}

/**
 * What an install Job does about pre-flight: runs it; skips it because its chart is annotated `<group>/preflight:
 * skip` (the Job carries the annotation, see src/build/install-job.ts); or has none because an earlier helmflow made it.
 */
export type PreflightMode = 'runs' | 'skipped' | 'none';

export function preflightModeOf(job: V1Job, group: ApiGroup): PreflightMode {
  if (job.spec?.template.spec?.initContainers?.some((c) => c.name === PREFLIGHT_CONTAINER) === true) return 'runs';
  return skipsPreflight(job.metadata?.annotations, group) ? 'skipped' : 'none';
}

/**
 * Pre-flight's two conditions once a pod of the Job got past pre-flight's place, written with the install's report:
 * - it ran: both True, ending any earlier failure;
 * - it was skipped: both Unknown with `Skipped`, naming the annotation. Not True, since nothing answered pre-flight's
 *   questions (an install that failed may not even have fetched the chart); not left unwritten, since a False from
 *   an earlier pre-flight (the failure that led a user to skip it) would then outlive the Job that no longer runs it;
 * - none (a Job of an earlier helmflow): nothing.
 */
export function preflightReport(jobName: string, mode: PreflightMode, group: ApiGroup): ConditionUpdate[] {
  if (mode === 'none') return [];
  if (mode === 'skipped') {
    const message = `${jobName} skipped pre-flight: the HelmChart is annotated ${preflightAnnotationKey(group)}: ${PREFLIGHT_SKIP}, so nothing fetched and rendered the chart against the cluster before helm upgrade`;
    return [
      { type: SourceAccessibleCondition.type, status: 'Unknown', reason: SourceAccessibleCondition.skipped, message },
      { type: DryRunRenderedCondition.type, status: 'Unknown', reason: DryRunRenderedCondition.skipped, message },
    ];
  }
  return [
    fetched(`${jobName} pre-flight fetched the chart`),
    {
      type: DryRunRenderedCondition.type,
      status: 'True',
      reason: DryRunRenderedCondition.rendered,
      message: `${jobName} pre-flight rendered the chart against the cluster`,
    },
  ];
}
