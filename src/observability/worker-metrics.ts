import { Runtime } from '@temporalio/worker';
import type { Logger } from 'pino';
import { Registry } from 'prom-client';
import { get } from '../lib/http.js';
import { sdkLogger } from './sdk-logger.js';

/**
 * Installs the Temporal worker's runtime once per process: its log lines go through helmflow's logger, and, with
 * a port, its own metrics (task slots, polls, activity latencies), which its Rust core serves as Prometheus on a
 * port of its own, so withWorkerMetrics can route them through helmflow's /metrics. Returns that URL.
 */
export function installWorkerRuntime(log: Logger, corePort: number | undefined): string | undefined {
  const bindAddress = corePort === undefined ? undefined : `127.0.0.1:${corePort}`;
  Runtime.install({
    logger: sdkLogger(log),
    // runRoles stops controller and worker together on SIGTERM and SIGINT. The SDK's own default would also stop
    // the worker alone on SIGQUIT and SIGUSR2 (node's heap-snapshot signal), leaving a controller that signals
    // charts no worker runs, and then fail that shutdown with "Not running".
    shutdownSignals: [],
    ...(bindAddress === undefined
      ? {}
      : { telemetryOptions: { metrics: { prometheus: { bindAddress, countersTotalSuffix: true } } } }),
  });
  return bindAddress === undefined ? undefined : `http://${bindAddress}/metrics`;
}

/** A registry that serves `base` followed by the worker core's metrics (or a note, when they are unavailable). */
export function withWorkerMetrics(base: Registry, coreUrl: string): Registry {
  const merged = new (class extends Registry {
    override async metrics(): Promise<string> {
      const own = await base.metrics();
      try {
        const core = await get(coreUrl, { timeoutMs: 2_000 });
        return `${own}\n${core.body}`;
      } catch (err) {
        return `${own}\n# temporal worker metrics unavailable: ${(err as Error).message}\n`;
      }
    }
  })();
  merged.setContentType(base.contentType);
  return merged;
}
