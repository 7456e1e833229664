import type { Connection } from '@temporalio/client';
import type { NativeConnection } from '@temporalio/worker';
import type { Logger } from 'pino';
import { ensureDigestKey } from '../kube/digest-key.js';
import { resolveKubeConfig } from '../kube/kubeconfig.js';
import { waitFor } from '../lib/wait.js';
import { ensureSearchAttributes } from '../worker/search-attributes.js';
import { createChartWorker } from '../worker/worker.js';
import { buildOptionsOf, type Settings } from './settings.js';
import { pause } from './pause.js';
import { operatorConnection, workerConnection } from './temporal.js';

export interface WorkerHooks {
  /** The worker polls its task queue: the process may be ready. */
  onRunning?: () => void;
  /** Why the worker is not polling yet, each time that changes (shown by /readyz). */
  onNotReady?: (reason: string) => void;
}

/** How long to wait before looking again: soon after an error, slowly while an operator must act. */
const RETRY_MS = 2_000;
const REFUSED_RECHECK_MS = 15_000;

/** Connects to Temporal, waiting (with a log line per failure) while it is not there yet. */
async function connectPatiently(settings: Settings, log: Logger, stop: AbortSignal): Promise<NativeConnection> {
  return waitFor(
    `Temporal at ${settings.temporalAddress}`,
    async () => {
      if (stop.aborted) throw new Error('stopped');
      try {
        return await workerConnection(settings);
      } catch (err) {
        log.warn({ err: (err as Error).message, address: settings.temporalAddress }, 'Temporal not reachable yet');
        throw err;
      }
    },
    { timeoutMs: 24 * 3600 * 1000, intervalMs: RETRY_MS },
  );
}

/**
 * Waits until helmflow's search attributes exist in the Temporal namespace, registering them where the server
 * allows. Where it does not, logs one error naming the command an operator runs (again only if that changes)
 * and looks again every few seconds, so the worker becomes ready once the operator has run it. False if stopped.
 */
async function searchAttributesReady(
  settings: Settings,
  log: Logger,
  stop: AbortSignal,
  onNotReady: (reason: string) => void,
): Promise<boolean> {
  const target = { namespace: settings.temporalNamespace, address: settings.temporalAddress };
  let operator: Connection | undefined;
  let reported = '';
  try {
    while (!stop.aborted) {
      let reason: string;
      let wait = RETRY_MS;
      try {
        operator ??= await operatorConnection(settings);
        const check = await ensureSearchAttributes(operator.operatorService, target);
        if (check.kind === 'ready') {
          if (check.added.length > 0) log.info({ added: check.added, ...target }, 'search attributes registered');
          return true;
        }
        reason = check.reason;
        wait = REFUSED_RECHECK_MS;
        if (reason !== reported) log.error({ missing: check.missing, ...target }, reason);
      } catch (err) {
        reason = `checking search attributes in Temporal namespace ${target.namespace}: ${(err as Error).message}`;
        if (reason !== reported) log.warn(reason);
      }
      reported = reason;
      onNotReady(reason);
      await pause(wait, stop);
    }
    return false;
  } finally {
    await operator?.close();
  }
}

/** The worker process: runs chart workflows and activities until `stop` aborts, then shuts down gracefully. */
export async function runWorker(
  settings: Settings,
  log: Logger,
  stop: AbortSignal,
  hooks: WorkerHooks = {},
): Promise<void> {
  const onNotReady = hooks.onNotReady ?? (() => undefined);
  const kube = resolveKubeConfig({ explicitPath: settings.kubeconfig });
  log.info({ kubeconfig: kube.description }, 'kubeconfig chosen');
  onNotReady('reading the digest key from the cluster');
  const digestKey = await ensureDigestKey(kube.kubeConfig, settings.leaseNamespace, log, stop);
  onNotReady(`connecting to Temporal at ${settings.temporalAddress}`);
  const connection = await connectPatiently(settings, log, stop);
  try {
    if (!(await searchAttributesReady(settings, log, stop, onNotReady))) return;
    const { worker, close } = await createChartWorker({
      connection,
      temporalNamespace: settings.temporalNamespace,
      taskQueue: settings.taskQueue,
      kubeConfig: kube.kubeConfig,
      group: settings.group,
      build: buildOptionsOf(settings, digestKey),
      maxConcurrentActivities: settings.activitySlots,
      maxRunningJobs: settings.maxRunningJobs,
      maxCachedWorkflows: settings.workflowCache,
      log,
    });
    const shutdown = () => {
      log.info('worker shutting down');
      // A worker that failed on its own is already stopping; run() reports why.
      if (worker.getState() === 'RUNNING') worker.shutdown();
    };
    log.info({ taskQueue: settings.taskQueue, namespace: settings.temporalNamespace }, 'worker running');
    try {
      const running = worker.run();
      // Bundling takes seconds: a stop that came meanwhile has already fired its event.
      if (stop.aborted) shutdown();
      else stop.addEventListener('abort', shutdown, { once: true });
      hooks.onRunning?.();
      await running;
    } finally {
      await close();
    }
  } finally {
    await connection.close();
  }
}
