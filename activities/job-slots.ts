import type { V1Job } from '@kubernetes/client-node';
import { Context } from '@temporalio/activity';
import { JobCreatedCondition } from '../src/api/reasons.js';
import type { ApiGroup, HelmChart } from '../src/api/index.js';
import { SLOT_WAIT_MS, farBackFrom, nearFrontOfLine, nextLookMs, type WatchedJobs } from '../src/build/job-slots.js';
import { actionLabelKey } from '../src/build/labels.js';
import type { ActivityDeps } from './deps.js';
import { GRANT_MS } from './job-slot-ledger.js';
import { pacedHeartbeat } from './heartbeat-pace.js';
import { outcomeOf } from './jobs.js';
import { nextLook } from './next-look.js';
import { setStatus } from './status.js';
import { stillWanted } from './still-wanted.js';
import type { ChartTarget } from './types.js';

/** helmflow's install and crds Jobs in the worker's Job watch: those still running, and the uid of each. */
function watchedInstallJobs(jobs: readonly V1Job[], group: ApiGroup): WatchedJobs {
  const action = actionLabelKey(group);
  const install = jobs.filter((job) => ['install', 'crds'].includes(job.metadata?.labels?.[action] ?? ''));
  return {
    running: install
      .filter((job) => job.metadata?.deletionTimestamp === undefined && outcomeOf(job) === undefined)
      .map((job) => `${job.metadata?.namespace ?? ''}/${job.metadata?.name ?? ''}`),
    seen: new Set(install.map((job) => job.metadata?.uid ?? '')),
  };
}

/**
 * Takes a slot for the chart's Job `jobName` if fewer than --max-running-jobs of helmflow's install Jobs run and no
 * chart that began waiting earlier is still in line for it, and keeps it `holdMs`; if not, the chart is in line.
 */
export async function takeJobSlot(deps: ActivityDeps, target: ChartTarget, jobName: string, holdMs?: number) {
  await deps.jobs.start();
  const now = Date.now();
  const jobs = deps.slots.watched(() => watchedInstallJobs(deps.jobs.list(), deps.group), now);
  const taken = deps.slots.take(jobs, slotKey(target, jobName), now, holdMs);
  return { taken, running: jobs.running.length };
}

/** The chart's Job `jobName` now exists as `jobUid`: its slot is held until the watch shows it (JobSlots.created). */
export function jobCreatedInSlot(deps: ActivityDeps, target: ChartTarget, jobName: string, jobUid: string): void {
  deps.slots.created(slotKey(target, jobName), jobUid);
}

/** Whether the chart, in line for a slot for `jobName`, is near its front (nearFrontOfLine). */
export function nearFront(deps: ActivityDeps, target: ChartTarget, jobName: string): boolean {
  return nearFrontOfLine(deps.slots.waitersAhead(slotKey(target, jobName), Date.now()), deps.slots.max);
}

function slotKey(target: ChartTarget, jobName: string): string {
  return `${target.ref.namespace}/${jobName}`;
}

/** JobCreated=False/WaitingForJobSlot, written once: not again while the chart already says it. */
export async function reportWaitingForSlot(
  deps: ActivityDeps,
  target: ChartTarget,
  chart: HelmChart,
  jobName: string,
  running: number,
): Promise<void> {
  const current = chart.status?.conditions?.find((c) => c.type === JobCreatedCondition.type);
  if (current?.reason === JobCreatedCondition.waiting) return;
  const message = `${running} of helmflow's install Jobs are running, the most --max-running-jobs (${deps.slots.max}) allows; ${jobName} is created when one ends`;
  const condition = {
    type: JobCreatedCondition.type,
    status: 'False' as const,
    reason: JobCreatedCondition.waiting,
    message,
  };
  await setStatus(deps, target, { conditions: [condition] }, chart);
}

/**
 * Waits, at most SLOT_WAIT_MS, until a slot for the chart's Job is free and its turn has come (the charts waiting in
 * this worker get slots in the order they began), and takes it for GRANT_MS (prepareInstall then finds it its own).
 * It creates nothing, so a pause, delete or spec change need not wait for it (the workflow moves on; this ends on
 * its own). It looks once a second, every 3 s while far back in the line (nextLookMs), and heartbeats at its
 * first look and then every HEARTBEAT_PACE_MS of looks; the SDK sends at most one heartbeat per 0.8 × the
 * workflow's heartbeat timeout (slotWaitHeartbeatTimeout: one minute, about one write every 48 s per waiting chart;
 * 20 s near the front of the line), so a wait lost with its worker, or never delivered to one, is taken up again
 * within that timeout instead of at its start-to-close timeout. So the SDK may not have heard of a cancel when the
 * turn comes: the wait asks Temporal then (stillWanted), and a wait its workflow no longer wants gives the slot back
 * to the next in line instead of holding it GRANT_MS for nothing.
 * Returns whether the slot was taken; the workflow asks again if not.
 */
export async function awaitJobSlot(deps: ActivityDeps, target: ChartTarget, jobName: string): Promise<boolean> {
  const deadline = Date.now() + SLOT_WAIT_MS;
  const context = Context.current();
  const heartbeat = pacedHeartbeat(context);
  const own = slotKey(target, jobName);
  const leave = deps.slots.enter(own);
  try {
    for (let looks = 1; ; looks += 1) {
      if ((await takeJobSlot(deps, target, jobName, GRANT_MS)).taken) {
        if (await stillWanted(context, deps.log)) return true;
        deps.slots.giveBack(own);
        deps.log.info({ job: own }, 'a Job slot wait its workflow no longer wants gave its slot back');
        return false;
      }
      if (Date.now() >= deadline) return false;
      // The looks so far: the Temporal UI shows them on the pending step, and the attempt after a timed-out wait
      // is handed them, so its log line (activities/retried.ts) tells a wait that never ran from one that did.
      heartbeat({ looks });
      // Ends at once when the worker shuts down or the wait is cancelled.
      const ahead = deps.slots.waitersAhead(own, Date.now(), farBackFrom(deps.slots.max));
      await nextLook(context, nextLookMs(ahead, deps.slots.max));
    }
  } finally {
    leave();
  }
}
