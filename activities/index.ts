import type { KubeConfig } from '@kubernetes/client-node';
import type { Logger } from 'pino';
import { planInstall, type BuildOptions } from '../src/build/index.js';
import { DEFAULT_MAX_RUNNING_JOBS } from '../src/build/job-slots.js';
import type { ApiGroup } from '../src/api/index.js';
import { readInstallInput } from './charts.js';
import { clientsFor, type ActivityDeps } from './deps.js';
import { recordEvent, recordInstallFailure, recordUninstallFailure } from './events.js';
import { ensureIdentity, ensureInstallInputs, removeInstallObjects } from './identity.js';
import { JobSlots } from './job-slot-ledger.js';
import { awaitJobSlot } from './job-slots.js';
import { JobWatcher } from './job-watcher.js';
import { classifyingErrors } from './kube-errors.js';
import { awaitJob, deleteJob, startDeleteJob, startInstallJob } from './jobs.js';
import { prepareInstall } from './prepare.js';
import { awaitChartCrds } from './crds-first.js';
import { recordRelease } from './release.js';
import { sayingRetries } from './retried.js';
import { releaseFinalizer, setStatus } from './status.js';
import type { ChartActivities, ChartTarget, Inspection } from './types.js';

export interface ActivitiesConfig {
  kubeConfig: KubeConfig;
  group: ApiGroup;
  build: BuildOptions;
  log: Logger;
  /** The --max-running-jobs setting: install Jobs of helmflow running at once (default DEFAULT_MAX_RUNNING_JOBS). */
  maxRunningJobs?: number;
}

async function inspectChart(deps: ActivityDeps, target: ChartTarget): Promise<Inspection> {
  const input = await readInstallInput(deps, target);
  if (input === undefined) return { state: 'gone' };
  const plan = planInstall(input, { ...deps.build, group: deps.group });
  return {
    state: 'present',
    generation: input.chart.metadata.generation ?? 0,
    deleting: input.chart.metadata.deletionTimestamp !== undefined,
    refusal: plan.ok ? undefined : plan.refusal,
  };
}

/** The chart workflow's activities, bound to one worker's clients and its shared Job watch. */
export function createActivities(config: ActivitiesConfig): {
  activities: ChartActivities;
  close: () => Promise<void>;
} {
  const clients = clientsFor(config.kubeConfig);
  const jobs = new JobWatcher(config.kubeConfig, clients.batch, config.log);
  const slots = new JobSlots(config.maxRunningJobs ?? DEFAULT_MAX_RUNNING_JOBS);
  const deps: ActivityDeps = { ...clients, group: config.group, build: config.build, log: config.log, jobs, slots };
  const activities: ChartActivities = {
    prepareInstall: (target, attempt, crds) => prepareInstall(deps, target, attempt, crds),
    awaitChartCrds: (target, job) => awaitChartCrds(deps, target, job),
    awaitJobSlot: (target, jobName) => awaitJobSlot(deps, target, jobName),
    inspectChart: (target) => inspectChart(deps, target),
    ensureIdentity: (target) => ensureIdentity(deps, target),
    ensureInstallInputs: (target) => ensureInstallInputs(deps, target),
    startInstallJob: (target, attempt) => startInstallJob(deps, target, attempt),
    awaitJob: (ref, job) => awaitJob(deps, ref, job),
    deleteJob: (ref, jobName) => deleteJob(deps, ref, jobName),
    setStatus: (target, update) => setStatus(deps, target, update),
    recordEvent: (target, event) => recordEvent(deps, target, event),
    recordInstallFailure: (target, jobName, reason) => recordInstallFailure(deps, target, jobName, reason),
    startDeleteJob: (target) => startDeleteJob(deps, target),
    recordUninstallFailure: (target, jobName, reason) => recordUninstallFailure(deps, target, jobName, reason),
    removeInstallObjects: (target) => removeInstallObjects(deps, target),
    releaseFinalizer: (target) => releaseFinalizer(deps, target),
    recordRelease: (target) => recordRelease(deps, target),
  };
  return { activities: classifyingAll(activities, config.log), close: () => jobs.stop() };
}

/**
 * Every activity's errors classified once (activities/kube-errors.ts): permanent ones end the step at once. An
 * attempt after the first says so first (activities/retried.ts).
 */
function classifyingAll(activities: ChartActivities, log: Logger): ChartActivities {
  const wrapped: Record<string, (...args: never[]) => Promise<unknown>> = {};
  for (const [name, run] of Object.entries(activities) as [string, (...args: never[]) => Promise<unknown>][]) {
    wrapped[name] = (...args) => sayingRetries(log, name, () => classifyingErrors(name, () => run(...args)));
  }
  return wrapped as unknown as ChartActivities;
}
