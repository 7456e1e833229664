import type { Logger } from 'pino';
import { HealthServer } from '../observability/http.js';
import { metrics, recordSignalError, recordSignalSent, recordWatchEvent, setLeader } from '../observability/metrics.js';
import { installWorkerMetrics, withWorkerMetrics } from '../observability/worker-metrics.js';
import { runController } from './controller-process.js';
import type { Settings } from './settings.js';
import { runWorker } from './worker-process.js';

export type Role = 'controller' | 'worker' | 'run';

/**
 * Runs the chosen roles until SIGTERM/SIGINT, then shuts each down gracefully. Serves /metrics, /healthz and
 * /readyz (ready once the controller has started campaigning and the worker polls).
 */
export async function runRoles(role: Role, settings: Settings, log: Logger): Promise<void> {
  const stop = new AbortController();
  for (const signal of ['SIGTERM', 'SIGINT'] as const) {
    process.once(signal, () => {
      log.info({ signal }, 'shutting down');
      stop.abort();
    });
  }
  const withController = role !== 'worker';
  const withWorker = role !== 'controller';
  let health: HealthServer | undefined;
  if (settings.httpPort > 0) {
    let registry = metrics().registry;
    if (withWorker) registry = withWorkerMetrics(registry, installWorkerMetrics(settings.httpPort + 1));
    health = await HealthServer.start({ port: settings.httpPort, host: settings.httpHost, registry });
    log.info({ url: health.url }, 'serving /metrics, /healthz and /readyz');
  }
  let workerRunning = !withWorker;
  const markReady = () => health?.setReady(workerRunning, workerRunning ? 'ready' : 'worker not connected to Temporal');
  markReady();
  const tasks: Promise<void>[] = [];
  if (withController) {
    tasks.push(
      runController(settings, log.child({ role: 'controller' }), stop.signal, {
        onSignal: (kind) => {
          recordSignalSent(kind);
        },
        onSignalError: (err) => {
          recordSignalError('any', (err as Error).name);
        },
        onWatchEvent: (kind) => {
          recordWatchEvent(kind, 'change');
        },
        onLeading: (leading) => {
          setLeader(leading);
          log.info({ role: 'controller' }, leading ? 'leading' : 'not leading');
        },
      }),
    );
  }
  if (withWorker) {
    tasks.push(
      runWorker(settings, log.child({ role: 'worker' }), stop.signal, () => {
        workerRunning = true;
        markReady();
      }),
    );
  }
  try {
    await Promise.all(tasks);
  } finally {
    await health?.close();
  }
}
