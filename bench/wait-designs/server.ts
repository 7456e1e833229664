// A Temporal dev server of the bench's own (the pinned binary, free ports, a temporary database), and what the
// bench reads of it: request counts from its Prometheus endpoint (CPU and RSS: ../proc.ts).
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { toolPaths } from '../../src/config/pins.js';
import { waitFor } from '../../src/lib/wait.js';
import { freePort } from '../../src/lib/free-port.js';

export interface DevServer {
  readonly pid: number;
  readonly address: string;
  readonly metricsPort: number;
  stop(): Promise<void>;
}

const running = new Set<ChildProcess>();
// A bench that dies half-way must not leave a server behind.
process.once('exit', () => {
  for (const child of running) child.kill('SIGKILL');
});

export async function startDevServer(): Promise<DevServer> {
  const [port, httpPort, metricsPort] = [await freePort(), await freePort(), await freePort()];
  const dir = mkdtempSync(path.join(tmpdir(), 'helmflow-bench-wait-'));
  const child = spawn(
    toolPaths().temporal,
    [
      'server',
      'start-dev',
      `--db-filename=${path.join(dir, 'temporal.db')}`,
      '--ip=127.0.0.1',
      `--port=${port}`,
      `--http-port=${httpPort}`,
      `--metrics-port=${metricsPort}`,
      '--headless',
      '--log-level=error',
    ],
    { stdio: ['ignore', 'ignore', 'inherit'] },
  );
  const { pid } = child;
  if (pid === undefined) throw new Error('could not start the Temporal dev server');
  running.add(child);
  const exited = new Promise<void>((resolve) => {
    child.once('exit', () => {
      resolve();
    });
  });
  const stop = async () => {
    child.kill('SIGTERM');
    const killer = setTimeout(() => child.kill('SIGKILL'), 10_000);
    await exited;
    clearTimeout(killer);
    running.delete(child);
    rmSync(dir, { recursive: true, force: true });
  };
  try {
    // The metrics endpoint answers once the services are up; the client's connect then waits for the frontend.
    await waitFor('the Temporal dev server', () => scrape(metricsPort).then((m) => m.size > 0 || undefined), {
      timeoutMs: 60_000,
      intervalMs: 250,
    });
  } catch (err) {
    await stop();
    throw err;
  }
  return { pid, address: `127.0.0.1:${port}`, metricsPort, stop };
}

/** Every sample of the server's metrics, keyed by the metric line's name and labels. */
export async function scrape(metricsPort: number): Promise<Map<string, number>> {
  const samples = new Map<string, number>();
  try {
    const res = await fetch(`http://127.0.0.1:${metricsPort}/metrics`);
    if (!res.ok) return samples;
    for (const line of (await res.text()).split('\n')) {
      if (line === '' || line.startsWith('#')) continue;
      const cut = line.lastIndexOf(' ');
      samples.set(line.slice(0, cut), Number(line.slice(cut + 1)));
    }
  } catch {
    // Not listening yet.
  }
  return samples;
}

/** How much a counter grew between two scrapes, summed per `operation` label, over the series with all `labels`. */
export function grownByOperation(
  before: Map<string, number>,
  after: Map<string, number>,
  family: string,
  labels: string[] = [],
): Map<string, number> {
  const grown = new Map<string, number>();
  for (const [key, value] of after) {
    if (!key.startsWith(`${family}{`) || !labels.every((label) => key.includes(label))) continue;
    const operation = /operation="([^"]*)"/.exec(key)?.[1] ?? '?';
    const delta = value - (before.get(key) ?? 0);
    if (delta > 0) grown.set(operation, (grown.get(operation) ?? 0) + delta);
  }
  return grown;
}
