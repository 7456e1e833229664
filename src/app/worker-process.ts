import type { NativeConnection } from '@temporalio/worker';
import type { Logger } from 'pino';
import { ensureDigestKey } from '../kube/digest-key.js';
import { resolveKubeConfig } from '../kube/kubeconfig.js';
import { waitFor } from '../devstack/wait.js';
import { createChartWorker } from '../worker/worker.js';
import { buildOptionsOf, type Settings } from './settings.js';
import { workerConnection } from './temporal.js';

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
    { timeoutMs: 24 * 3600 * 1000, intervalMs: 2_000 },
  );
}

/** The worker process: runs chart workflows and activities until `stop` aborts, then shuts down gracefully. */
export async function runWorker(
  settings: Settings,
  log: Logger,
  stop: AbortSignal,
  onRunning: () => void = () => undefined,
): Promise<void> {
  const kube = resolveKubeConfig({ explicitPath: settings.kubeconfig });
  log.info({ kubeconfig: kube.description }, 'kubeconfig chosen');
  const digestKey = await ensureDigestKey(kube.kubeConfig, settings.leaseNamespace, log, stop);
  const connection = await connectPatiently(settings, log, stop);
  const { worker, close } = await createChartWorker({
    connection,
    temporalNamespace: settings.temporalNamespace,
    taskQueue: settings.taskQueue,
    kubeConfig: kube.kubeConfig,
    group: settings.group,
    build: buildOptionsOf(settings, digestKey),
    maxConcurrentActivities: settings.activitySlots,
    log,
  });
  const shutdown = () => {
    log.info('worker shutting down');
    worker.shutdown();
  };
  log.info({ taskQueue: settings.taskQueue }, 'worker running');
  try {
    const running = worker.run();
    // Bundling takes seconds: a stop that came meanwhile has already fired its event.
    if (stop.aborted) shutdown();
    else stop.addEventListener('abort', shutdown, { once: true });
    onRunning();
    await running;
  } finally {
    await close();
    await connection.close();
  }
}
