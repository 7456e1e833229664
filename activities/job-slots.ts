import { Context } from '@temporalio/activity';
import type { V1Job } from '@kubernetes/client-node';
import { JobCreatedCondition } from '../src/api/reasons.js';
import { actionLabelKey } from '../src/build/labels.js';
import { slotFree } from '../src/build/job-slots.js';
import type { ActivityDeps } from './deps.js';
import { setStatus } from './status.js';
import type { ChartTarget } from './types.js';
import type { ApiGroup, HelmChart } from '../src/api/index.js';

/** How long a Job this worker created is counted before its watch shows it (the watch usually takes well under 1 s). */
const RESERVED_MS = 10_000;
const LOOK_MS = 1_000;

/** The Jobs this worker created recently: counted until its watch shows them, so a burst cannot overshoot the cap. */
export class JobSlots {
  private readonly reserved = new Map<string, number>();

  constructor(readonly max: number) {}

  /** Takes a slot for `own` when one is free now (synchronous: no two waiters of this worker take the last one). */
  take(running: readonly string[], own: string, now: number): boolean {
    for (const [key, at] of this.reserved) if (now - at > RESERVED_MS) this.reserved.delete(key);
    if (!slotFree({ running, reserved: [...this.reserved.keys()], own, max: this.max })) return false;
    this.reserved.set(own, now);
    return true;
  }
}

function runningInstallJobs(jobs: readonly V1Job[], group: ApiGroup): string[] {
  const action = actionLabelKey(group);
  return jobs
    .filter((job) => ['install', 'crds'].includes(job.metadata?.labels?.[action] ?? ''))
    .filter((job) => job.metadata?.deletionTimestamp === undefined)
    .filter(
      (job) =>
        !(job.status?.conditions ?? []).some((c) => ['Complete', 'Failed'].includes(c.type) && c.status === 'True'),
    )
    .map((job) => `${job.metadata?.namespace ?? ''}/${job.metadata?.name ?? ''}`);
}

/**
 * Waits until fewer than --max-running-jobs of helmflow's install Jobs run (cluster-wide, as this worker's Job watch
 * sees them), then takes the slot for `jobName`. A chart that has to wait says so once (`JobCreated=False`,
 * `WaitingForJobSlot`), and heartbeats meanwhile, so a pause or a delete cancels the wait. Several workers each
 * count the same Jobs, so together they may briefly exceed the cap by the Jobs created in the same second.
 */
export async function awaitJobSlot(deps: ActivityDeps, target: ChartTarget, chart: HelmChart, jobName: string) {
  const context = Context.current();
  const own = `${target.ref.namespace}/${jobName}`;
  await deps.jobs.start();
  for (let looks = 0; ; looks += 1) {
    const running = runningInstallJobs(deps.jobs.list(), deps.group);
    if (deps.slots.take(running, own, Date.now())) return;
    if (looks === 0) {
      const message = `${running.length} of helmflow's install Jobs are running, the most --max-running-jobs (${deps.slots.max}) allows; ${jobName} is created when one ends`;
      await setStatus(
        deps,
        target,
        {
          conditions: [
            { type: JobCreatedCondition.type, status: 'False', reason: JobCreatedCondition.waiting, message },
          ],
        },
        chart,
      );
      deps.log.info({ chart: own, running: running.length }, 'waiting for a Job slot');
    }
    context.heartbeat({ step: 'job slot' });
    await context.sleep(LOOK_MS);
  }
}
