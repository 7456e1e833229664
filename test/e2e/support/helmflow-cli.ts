import { spawn } from 'node:child_process';
import { repoRoot } from '../../../src/config/pins.js';
import { freePort } from '../../../src/lib/free-port.js';
import { get } from '../../../src/lib/http.js';
import { waitFor } from '../../../src/lib/wait.js';
import { helmflowCommand } from './helmflow-process.js';

export interface HelmflowCli {
  /** /readyz, /metrics, /healthz. */
  url: string;
  startedAt: number;
  logs(): string;
  /** Log lines (JSON) whose message matches. */
  logLines(message: RegExp): { level: number; msg: string; [key: string]: unknown }[];
  readyz(): Promise<{ status: number; body: string }>;
  /** Waits for /readyz 200; the milliseconds since the process started. */
  untilReady(timeoutMs?: number): Promise<number>;
  /** SIGTERM; resolves with the exit code and how long the exit took. */
  terminate(): Promise<{ code: number | null; ms: number }>;
  /** SIGKILL if still running. */
  dispose(): void;
}

/**
 * A real `helmflow <role>` process (the compiled CLI, as the image runs it) with `args` and `env` added to a
 * clean environment: no KUBECONFIG or in-cluster variables leak in from the test runner.
 */
export async function startHelmflowCli(
  role: 'run' | 'controller' | 'worker',
  args: string[],
  env: NodeJS.ProcessEnv = {},
): Promise<HelmflowCli> {
  const port = await freePort();
  const base: NodeJS.ProcessEnv = { ...process.env, HELMFLOW_LOG_LEVEL: 'info', NODE_OPTIONS: '' };
  for (const name of ['KUBECONFIG', 'KUBERNETES_SERVICE_HOST', 'KUBERNETES_SERVICE_PORT']) base[name] = undefined;
  const startedAt = Date.now();
  const child = spawn(
    process.execPath,
    [...helmflowCommand(), role, '--http-port', String(port), '--manifests-dir=', ...args],
    { cwd: repoRoot, env: { ...base, ...env }, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let logs = '';
  child.stdout.on('data', (d: Buffer) => (logs += d.toString()));
  child.stderr.on('data', (d: Buffer) => (logs += d.toString()));
  const exit = new Promise<number | null>((resolve) =>
    child.once('exit', (code) => {
      resolve(code);
    }),
  );
  const url = `http://127.0.0.1:${port}`;
  const readyz = async () => {
    const res = await get(`${url}/readyz`);
    return { status: res.status, body: res.body };
  };
  return {
    url,
    startedAt,
    logs: () => logs,
    logLines: (message) =>
      logs
        .split('\n')
        .filter((l) => l.startsWith('{'))
        .map((l) => JSON.parse(l) as { level: number; msg: string })
        .filter((l) => message.test(l.msg)),
    readyz,
    untilReady: async (timeoutMs = 120_000) => {
      await waitFor(`helmflow ${role} /readyz 200`, async () => (await readyz()).status === 200, {
        timeoutMs,
        intervalMs: 100,
      });
      return Date.now() - startedAt;
    },
    terminate: async () => {
      const t0 = Date.now();
      child.kill('SIGTERM');
      const code = await exit;
      return { code, ms: Date.now() - t0 };
    },
    dispose: () => {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    },
  };
}
