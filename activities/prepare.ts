import { Context } from '@temporalio/activity';
import { planInstall } from '../src/build/index.js';
import { readInstallInput } from './charts.js';
import type { ActivityDeps } from './deps.js';
import { applyInstallInputs, ensureJobIdentity } from './identity.js';
import { createInstallJob } from './jobs.js';
import type { ChartTarget, Preparation } from './types.js';

/**
 * One install attempt up to its Job, from ONE read of the HelmChart, its HelmChartConfig and Secrets: validated,
 * then every object (identity, values Secret, chart ConfigMap, Job) built from that same read, so an edit landing
 * meanwhile cannot reach the Job unchecked. Idempotent: a retry after a crash applies the same objects and finds
 * its own Job. Heartbeats between steps, so a worker that dies here is replaced within the heartbeat timeout.
 */
export async function prepareInstall(deps: ActivityDeps, target: ChartTarget, attempt: number): Promise<Preparation> {
  const input = await readInstallInput(deps, target);
  if (input === undefined) return { state: 'gone' };
  const generation = input.chart.metadata.generation ?? 0;
  const plan = planInstall(input, { ...deps.build, group: deps.group });
  if (!plan.ok) return { state: 'refused', generation, refusal: plan.refusal };
  heartbeat('identity');
  await ensureJobIdentity(deps, input.chart, plan.objects);
  heartbeat('install inputs');
  await applyInstallInputs(deps, input.chart, plan.objects);
  heartbeat('job');
  const job = await createInstallJob(deps, target, input.chart, plan.objects.job, attempt);
  return { state: 'started', generation, job };
}

function heartbeat(step: string): void {
  Context.current().heartbeat({ step });
}
