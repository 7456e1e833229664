import type { KubeConfig } from '@kubernetes/client-node';
import { NativeConnection, Worker, type WorkerOptions } from '@temporalio/worker';
import type { Logger } from 'pino';
import { createActivities } from '../../activities/index.js';
import type { ApiGroup } from '../api/index.js';
import type { BuildOptions } from '../build/options.js';
import { SHUTDOWN_FORCE_SECONDS, SHUTDOWN_GRACE_SECONDS } from './shutdown.js';
import { DEFAULT_WORKFLOW_CACHE } from './workflow-cache.js';
import { workflowSource } from './workflows-path.js';

export interface WorkerConfig {
  connection: NativeConnection;
  temporalNamespace: string;
  taskQueue: string;
  kubeConfig: KubeConfig;
  group: ApiGroup;
  build: BuildOptions;
  log: Logger;
  /** Activity slots: each waiting chart holds one while its Job runs (the --activity-slots setting). */
  maxConcurrentActivities?: number;
  /** Install Jobs of helmflow running at once, cluster-wide (the --max-running-jobs setting). */
  maxRunningJobs?: number;
  /** Chart workflows kept in memory between tasks (the --workflow-cache setting). */
  maxCachedWorkflows?: number;
  /** A pre-built bundle (tests build one for many workers). */
  workflowBundle?: WorkerOptions['workflowBundle'];
}

/**
 * A worker running the chart workflows and their activities. Any number may run: Temporal spreads the charts.
 * On shutdown it stops polling, lets running activities finish within the grace time, then cancels them
 * (src/worker/shutdown.ts).
 */
export async function createChartWorker(config: WorkerConfig): Promise<{ worker: Worker; close: () => Promise<void> }> {
  const { connection } = config;
  const { activities, close } = createActivities({
    kubeConfig: config.kubeConfig,
    group: config.group,
    build: config.build,
    log: config.log,
    ...(config.maxRunningJobs === undefined ? {} : { maxRunningJobs: config.maxRunningJobs }),
  });
  const worker = await Worker.create({
    connection,
    namespace: config.temporalNamespace,
    taskQueue: config.taskQueue,
    ...(config.workflowBundle ? { workflowBundle: config.workflowBundle } : workflowSource()),
    activities,
    maxConcurrentActivityTaskExecutions: config.maxConcurrentActivities ?? 1500,
    maxCachedWorkflows: config.maxCachedWorkflows ?? DEFAULT_WORKFLOW_CACHE,
    shutdownGraceTime: `${SHUTDOWN_GRACE_SECONDS} seconds`,
    shutdownForceTime: `${SHUTDOWN_FORCE_SECONDS} seconds`,
  });
  return {
    worker,
    close,
  };
}
