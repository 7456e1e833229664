import type { Logger } from 'pino';
import { HealthServer } from '../observability/http.js';
import {
  metrics,
  recordMallocTrim,
  recordResyncSweep,
  recordSignalError,
  recordSignalSent,
  recordWatchEvent,
  setLeader,
} from '../observability/metrics.js';
import { freePort } from '../lib/free-port.js';
import { installWorkerRuntime, withWorkerMetrics } from '../observability/worker-metrics.js';
import { runController } from './controller-process.js';
import { trimFreedMemoryEvery } from './malloc-trim.js';
import type { Settings } from './settings.js';
import { runWorker } from './worker-process.js';
import { SHUTDOWN_EXIT_SECONDS } from '../worker/shutdown.js';

export type Role = 'controller' | 'worker' | 'run';

/**
 * Runs the chosen roles until SIGTERM/SIGINT, then shuts each down gracefully, exiting within SHUTDOWN_EXIT_SECONDS.
 * Serves /metrics, /healthz and /readyz: ready once the controller reaches its Temporal namespace (and has
 * started its watches when it leads) and the worker polls; until then /readyz names what each waits for.
 */
export async function runRoles(role: Role, settings: Settings, log: Logger): Promise<void> {
  const stop = new AbortController();
  for (const signal of ['SIGTERM', 'SIGINT'] as const) {
    process.once(signal, () => {
      log.info({ signal, exitWithinSeconds: SHUTDOWN_EXIT_SECONDS }, 'shutting down');
      stop.abort();
      setTimeout(() => {
        log.error({ seconds: SHUTDOWN_EXIT_SECONDS }, 'shutdown took too long; exiting');
        process.exit(1);
      }, SHUTDOWN_EXIT_SECONDS * 1000).unref();
    });
  }
  const withController = role !== 'worker';
  const withWorker = role !== 'controller';
  const trimming = trimFreedMemoryEvery(log, ({ seconds, returnedBytes }) => {
    recordMallocTrim(seconds, returnedBytes);
  });
  let health: HealthServer | undefined;
  // The worker core serves its metrics on a loopback port of its own, chosen free (a fixed neighbour of the HTTP
  // port may be taken, and the core cannot start then); /metrics serves them with helmflow's own.
  const coreMetrics = withWorker
    ? installWorkerRuntime(log, settings.httpPort > 0 ? await freePort() : undefined)
    : undefined;
  if (settings.httpPort > 0) {
    let registry = metrics().registry;
    if (coreMetrics !== undefined) registry = withWorkerMetrics(registry, coreMetrics);
    health = await HealthServer.start({ port: settings.httpPort, host: settings.httpHost, registry });
    log.info({ url: health.url }, 'serving /metrics, /healthz and /readyz');
  }
  const waiting = new Map<string, string>();
  const readiness = (part: 'controller' | 'worker', notReady: string | undefined) => {
    if (notReady === undefined) waiting.delete(part);
    else waiting.set(part, notReady);
    const reasons = [...waiting].map(([who, why]) => `${who}: ${why}`);
    health?.setReady(reasons.length === 0, reasons.join('; '));
  };
  if (withController) readiness('controller', 'starting');
  if (withWorker) readiness('worker', 'starting');
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
        onSweep: (queued) => {
          recordResyncSweep(queued);
        },
        onWatchEvent: (kind) => {
          recordWatchEvent(kind, 'change');
        },
        onLeading: (leading) => {
          setLeader(leading);
          log.info({ role: 'controller' }, leading ? 'leading' : 'not leading');
        },
        onReadiness: (notReady) => {
          readiness('controller', notReady);
        },
      }),
    );
  }
  if (withWorker) {
    tasks.push(
      runWorker(settings, log.child({ role: 'worker' }), stop.signal, {
        onRunning: () => {
          readiness('worker', undefined);
        },
        onNotReady: (reason) => {
          readiness('worker', reason);
        },
      }),
    );
  }
  try {
    await Promise.all(tasks);
  } finally {
    trimming.stop();
    await health?.close();
  }
}
