import { InstalledCondition } from '../src/api/reasons.js';
import { readChart } from './charts.js';
import type { ActivityDeps } from './deps.js';
import { recordRepeatedEvent } from './events.js';
import { newestFailedPod, podLogTail } from './failed-pods.js';
import { preflightReport, reportPreflightFailed, type PreflightMode } from './preflight.js';
import { releaseOf } from './release.js';
import { unlockAbandonedRelease } from './release-unlock.js';
import { refusedAsLocked } from '../src/release/unlock.js';
import { setStatus } from './status.js';
import type { ChartTarget, StatusUpdate } from './types.js';
import { ChartEventReason } from '../src/api/event-reasons.js';

/** The Warning for a failed pod of the install Job while the Job still retries (aggregated, see event-series.ts). */

const conditionTailBytes = 1024;

function lastBytes(text: string, bytes: number): string {
  if (Buffer.byteLength(text) <= bytes) return text;
  return '…' + Buffer.from(text).subarray(-bytes).toString('utf8');
}

/**
 * Says on the chart, as it happens, that a pod of its install Job failed: `Installed=False` with
 * `InstallAttemptFailed` (k3s's `Failed` stays False until the Job itself fails) and the aggregated Warning, both
 * with helm's last lines. Helm's output goes straight to Kubernetes: only the exit code is returned to Temporal.
 */
export async function reportFailedPods(
  deps: ActivityDeps,
  target: ChartTarget,
  job: { jobName: string; jobUid: string; backoffLimit: number | undefined; preflight: PreflightMode },
  failedPods: number,
): Promise<{ exitCode: number | undefined }> {
  const { namespace } = target.ref;
  const pod = await newestFailedPod(deps, namespace, job);
  if (pod?.preflight !== undefined) {
    await reportPreflightFailed(deps, target, job, failedPods, { ...pod, preflight: pod.preflight });
    return { exitCode: pod.exitCode };
  }
  const tail =
    pod === undefined ? '(the failed pod is gone)' : await podLogTail(deps, namespace, pod.name, pod.container);
  // helm refused because a helm that died left the release pending: unlock it, so the Job's next pod can run.
  if (refusedAsLocked(tail)) await unlockAbandonedRelease(deps, target, job.jobName);
  const exit = pod?.exitCode === undefined ? 'no exit code' : `exit ${pod.exitCode}`;
  const limit = job.backoffLimit === undefined ? '' : ` of backOffLimit ${job.backoffLimit}`;
  const summary = `${job.jobName}: ${failedPods} failed pod${failedPods === 1 ? '' : 's'}${limit}, last ${exit}`;
  const container = pod?.container === undefined ? '' : ` -c ${pod.container}`;
  const logs = `kubectl logs -n ${namespace} pod/${pod?.name ?? `-l job-name=${job.jobName}`}${container}`;
  await setStatus(deps, target, {
    conditions: [
      // The install ran, so this pod's pre-flight passed (or was skipped).
      ...(pod === undefined ? [] : preflightReport(job.jobName, job.preflight, target.ref.group)),
      {
        type: InstalledCondition.type,
        status: 'False',
        reason: InstalledCondition.attemptFailed,
        message: `${summary}; the Job retries. Last lines of ${logs}:\n${lastBytes(tail, conditionTailBytes)}`,
      },
    ],
  });
  await recordRepeatedEvent(
    deps,
    target,
    {
      type: 'Warning',
      reason: ChartEventReason.InstallAttemptFailed,
      message: `${summary}; the Job retries. Last lines of ${logs}:\n${tail}`,
    },
    { jobUid: job.jobUid, failedPods },
  );
  return { exitCode: pod?.exitCode };
}

/**
 * The install Job succeeded: `Installed=True`, ending an `InstallAttemptFailed` left by earlier pods, with the
 * attempt's own report (`attempt`: phase, digest, generation) in the same write when the workflow sent one,
 * pre-flight's conditions when the Job ran or skipped it, and the release helm just stored (status.release) — read
 * here, not by a workflow step of its own, so the success costs no history event more.
 */
export async function reportInstalled(
  deps: ActivityDeps,
  target: ChartTarget,
  jobName: string,
  attempt: StatusUpdate | undefined,
  preflight: PreflightMode,
): Promise<void> {
  const chart = await readChart(deps, target);
  if (chart === undefined) return;
  const release = await releaseOf(deps, chart);
  await setStatus(
    deps,
    target,
    {
      ...attempt,
      release,
      conditions: [
        ...(attempt?.conditions ?? []),
        ...preflightReport(jobName, preflight, target.ref.group),
        {
          type: InstalledCondition.type,
          status: 'True',
          reason: InstalledCondition.succeeded,
          message: `${jobName} succeeded`,
        },
      ],
    },
    chart,
  );
}
