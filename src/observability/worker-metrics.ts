import { Runtime } from '@temporalio/worker';
import { Registry } from 'prom-client';
import { get } from '../lib/http.js';

/**
 * The Temporal worker's own metrics (task slots, polls, activity latencies) come from its Rust core, which serves
 * Prometheus on a port of its own. This routes them through helmflow's /metrics as well, so one scrape sees all.
 */
export function installWorkerMetrics(corePort: number): string {
  const bindAddress = `127.0.0.1:${corePort}`;
  Runtime.install({ telemetryOptions: { metrics: { prometheus: { bindAddress, countersTotalSuffix: true } } } });
  return `http://${bindAddress}/metrics`;
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
