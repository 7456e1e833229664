import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { repoRoot } from '../../../src/config/pins.js';
import { serviceAccountKubeConfig } from '../../../src/kube/service-account.js';
import { kubeConfig } from './kube.js';
import { testLayout } from './stack.js';
import { freePort } from '../../../src/lib/free-port.js';
import { helmflowCommand } from './helmflow-process.js';

export interface ControllerProcess {
  pid: number;
  /** The HTTP port of /metrics, /healthz and /readyz. */
  port: number;
  /** Everything the process wrote so far (JSON log lines). */
  logs(): string;
  /** SIGTERM, then its exit code. */
  stop(): Promise<number | null>;
  /** SIGKILL if still running, and removes its files. */
  dispose(): void;
}

/**
 * The real `helmflow controller` process (the compiled CLI, the image's command) against the
 * test stack, acting only as the ServiceAccount `namespace/name`: its kubeconfig holds a TokenRequest token of
 * that account and nothing else, and no variable can give it another identity.
 */
export async function startControllerAs(
  namespace: string,
  name: string,
  extraArgs: string[] = [],
): Promise<ControllerProcess> {
  const work = mkdtempSync(path.join(tmpdir(), 'helmflow-controller-as-'));
  const { kubeConfig: asAccount } = await serviceAccountKubeConfig(kubeConfig(), namespace, name, 3600);
  const kubeconfigFile = path.join(work, 'kubeconfig');
  writeFileSync(kubeconfigFile, asAccount.exportConfig(), { mode: 0o600 });
  const port = await freePort();
  const env: NodeJS.ProcessEnv = { ...process.env, HELMFLOW_LOG_LEVEL: 'info' };
  for (const variable of ['KUBECONFIG', 'KUBERNETES_SERVICE_HOST', 'KUBERNETES_SERVICE_PORT', 'NODE_OPTIONS']) {
    env[variable] = undefined;
  }
  const args = [
    ...helmflowCommand(),
    'controller',
    '--kubeconfig',
    kubeconfigFile,
    '--temporal-address',
    testLayout().temporalAddress,
    '--http-port',
    String(port),
    // As in the Deployments: probes reach the pod's address.
    '--http-host',
    '0.0.0.0',
    ...extraArgs,
  ];
  const child = spawn(process.execPath, args, { cwd: repoRoot, env, stdio: ['ignore', 'pipe', 'pipe'] });
  let logs = '';
  child.stdout.on('data', (d: Buffer) => (logs += d.toString()));
  child.stderr.on('data', (d: Buffer) => (logs += d.toString()));
  const exit = new Promise<number | null>((resolve) => {
    child.once('exit', (code) => {
      resolve(code);
    });
  });
  return {
    pid: child.pid ?? -1,
    port,
    logs: () => logs,
    stop: async () => {
      child.kill('SIGTERM');
      return exit;
    },
    dispose: () => {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
      rmSync(work, { recursive: true, force: true });
    },
  };
}
