import { get } from '../lib/http.js';
import { cliDaemonArgs } from './cli-daemon.js';
import type { StackLayout } from './layout.js';
import { isRunning, readPid, startDaemon } from './process.js';
import { waitFor, WaitAborted } from '../lib/wait.js';

/** helmflow's HTTP port on the embedded stack (/metrics, /healthz, /readyz); the worker core's is the next. */
export const stackHttpPort = 9090;

/**
 * Starts `helmflow run` (controller and worker) as a daemon on the embedded stack, with the stack's
 * auto-deploy directory; reuses one that already runs. Resolves once /readyz answers.
 */
export async function startHelmflowDaemon(layout: StackLayout): Promise<number> {
  const pidFile = layout.pidFile('helmflow');
  const command = process.execPath;
  let pid = readPid(pidFile);
  if (pid === undefined || !isRunning(pid, command)) {
    pid = startDaemon({
      command,
      args: cliDaemonArgs(
        'run',
        `--kubeconfig=${layout.adminKubeconfig}`,
        `--temporal-address=${layout.temporalAddress}`,
        `--manifests-dir=${layout.manifestsDir}`,
        `--http-port=${stackHttpPort}`,
        `--api-server-port=${layout.ports.apiserver}`,
      ),
      env: { ...process.env, NODE_OPTIONS: '' },
      logFile: layout.logFile('helmflow'),
      pidFile,
      cwd: layout.stateDir,
    });
  }
  const daemon = pid;
  await waitFor(
    `helmflow to be ready (log: ${layout.logFile('helmflow')})`,
    async () => {
      if (!isRunning(daemon, command)) throw new WaitAborted(`helmflow exited; see ${layout.logFile('helmflow')}`);
      return (await get(`http://127.0.0.1:${stackHttpPort}/readyz`)).status === 200;
    },
    { timeoutMs: 120_000, intervalMs: 250 },
  );
  return daemon;
}
