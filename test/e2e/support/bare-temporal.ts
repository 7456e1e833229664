import { execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { toolPaths } from '../../../src/config/pins.js';
import { freePort } from '../../../src/lib/free-port.js';
import { waitFor } from '../../../src/lib/wait.js';

export interface BareTemporal {
  address: string;
  /** The pinned Temporal CLI against this server, as an operator would run it. */
  cli(args: string[]): string;
  stop(): Promise<void>;
}

/**
 * A second Temporal dev server, as a new user starts one: the pinned binary with no --search-attribute and no
 * namespace but `default`, on ports and a database of its own, so helmflow meets a Temporal that never saw it.
 */
export async function startBareTemporal(): Promise<BareTemporal> {
  const dir = mkdtempSync(path.join(tmpdir(), 'helmflow-bare-temporal-'));
  const [port, uiPort, metricsPort, httpPort] = [
    await freePort(),
    await freePort(),
    await freePort(),
    await freePort(),
  ];
  const address = `127.0.0.1:${port}`;
  const server = spawn(
    toolPaths().temporal,
    [
      'server',
      'start-dev',
      `--db-filename=${path.join(dir, 'temporal.db')}`,
      '--ip=127.0.0.1',
      `--port=${port}`,
      `--ui-port=${uiPort}`,
      `--metrics-port=${metricsPort}`,
      `--http-port=${httpPort}`,
      '--log-level=warn',
    ],
    { stdio: 'ignore' },
  );
  const exited = new Promise<void>((resolve) =>
    server.once('exit', () => {
      resolve();
    }),
  );
  const cli = (args: string[]) =>
    execFileSync(toolPaths().temporal, [...args, '--address', address], { encoding: 'utf8', stdio: 'pipe' });
  await waitFor(`the bare Temporal at ${address}`, () => cli(['operator', 'cluster', 'health']).includes('SERVING'), {
    timeoutMs: 60_000,
    intervalMs: 500,
  });
  return {
    address,
    cli,
    stop: async () => {
      if (server.exitCode === null && server.signalCode === null) server.kill('SIGTERM');
      await exited;
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
