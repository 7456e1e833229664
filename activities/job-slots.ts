import type { V1Job } from '@kubernetes/client-node';
import { Context } from '@temporalio/activity';
import { JobCreatedCondition } from '../src/api/reasons.js';
import type { ApiGroup, HelmChart } from '../src/api/index.js';
import { SLOT_WAIT_MS, slotFree } from '../src/build/job-slots.js';
import { actionLabelKey } from '../src/build/labels.js';
import type { ActivityDeps } from './deps.js';
import { outcomeOf } from './jobs.js';
import { nextLook } from './next-look.js';
import { setStatus } from './status.js';
import type { ChartTarget } from './types.js';

/** How long a Job this worker created is counted before its watch shows it (the watch usually takes well under 1 s). */
const RESERVED_MS = 10_000;
/**
 * How long a slot awaitJobSlot took is kept for the chart's next step (prepareInstall, which creates the Job). A
 * workflow task and a step lie between the two; under load at 1,000 charts that took more than RESERVED_MS, the
 * slot went to another chart, and the chart waited again.
 */
export const GRANT_MS = 60_000;
/**
 * How long prepareInstall holds the slot it takes before applying the chart's identity and inputs; it takes it
 * again, for RESERVED_MS, right before it creates the Job. A prepareInstall that fails in between keeps it no longer.
 */
export const PREPARE_HOLD_MS = 30_000;
const LOOK_MS = 1_000;
/** How long one count of the running Jobs serves every chart that asks: a thousand waiters share one count. */
const RECOUNT_MS = 250;

/** The Jobs this worker created recently: counted until its watch shows them, so a burst cannot overshoot the cap. */
export class JobSlots {
  /** namespace/name of a Job → until when it is counted. */
  private readonly reserved = new Map<string, number>();
  private counted: { at: number; running: string[] } | undefined;

  constructor(readonly max: number) {}

  /** The running Jobs, counted (`count`) at most once per RECOUNT_MS; a Job this worker creates is reserved at once. */
  running(count: () => string[], now: number): string[] {
    if (this.counted === undefined || now - this.counted.at >= RECOUNT_MS) this.counted = { at: now, running: count() };
    return this.counted.running;
  }

  /**
   * Takes a slot for `own` when one is free now, and keeps it `holdMs` from now (synchronous: no two callers in this
   * worker take the last one). prepareInstall's take shortens awaitJobSlot's hold: once the Job exists, the watch
   * counts it, and its slot frees when it ends.
   */
  take(running: readonly string[], own: string, now: number, holdMs = RESERVED_MS): boolean {
    for (const [key, until] of this.reserved) if (now > until) this.reserved.delete(key);
    if (!slotFree({ running, reserved: [...this.reserved.keys()], own, max: this.max })) return false;
    this.reserved.set(own, now + holdMs);
    return true;
  }
}

/** namespace/name of each of helmflow's install and crds Jobs still running, as the worker's Job watch shows them. */
function runningInstallJobs(jobs: readonly V1Job[], group: ApiGroup): string[] {
  const action = actionLabelKey(group);
  return jobs
    .filter((job) => ['install', 'crds'].includes(job.metadata?.labels?.[action] ?? ''))
    .filter((job) => job.metadata?.deletionTimestamp === undefined && outcomeOf(job) === undefined)
    .map((job) => `${job.metadata?.namespace ?? ''}/${job.metadata?.name ?? ''}`);
}

/**
 * Takes a slot for the chart's Job `jobName` if fewer than --max-running-jobs of helmflow's install Jobs run, and
 * keeps it `holdMs`.
 */
export async function takeJobSlot(deps: ActivityDeps, target: ChartTarget, jobName: string, holdMs?: number) {
  await deps.jobs.start();
  const now = Date.now();
  const running = deps.slots.running(() => runningInstallJobs(deps.jobs.list(), deps.group), now);
  const taken = deps.slots.take(running, `${target.ref.namespace}/${jobName}`, now, holdMs);
  return { taken, running: running.length };
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
 * Waits, at most SLOT_WAIT_MS, until a slot for the chart's Job is free, and takes it for GRANT_MS (prepareInstall
 * then finds it its own). It creates nothing, so a pause, delete or spec change need not wait for it (the workflow
 * moves on; this ends on its own). It heartbeats at each look; the SDK sends at most one heartbeat per 0.8 × the
 * workflow's heartbeat timeout (one minute: about one write every 48 s per waiting chart), so a wait lost with its
 * worker, or never delivered to one, is taken up again within that minute instead of at its start-to-close timeout.
 * Returns whether the slot was taken; the workflow asks again if not.
 */
export async function awaitJobSlot(deps: ActivityDeps, target: ChartTarget, jobName: string): Promise<boolean> {
  const deadline = Date.now() + SLOT_WAIT_MS;
  const context = Context.current();
  for (;;) {
    if ((await takeJobSlot(deps, target, jobName, GRANT_MS)).taken) return true;
    if (Date.now() >= deadline) return false;
    context.heartbeat();
    // Ends at once when the worker shuts down or the wait is cancelled.
    await nextLook(context, LOOK_MS);
  }
}
