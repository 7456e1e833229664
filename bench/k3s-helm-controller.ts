// k3s's helm-controller (the version tools/pins.json pins as `k3s-helm-controller`), run by the side-by-side bench.
// A minimal launcher of the bench's own: test/e2e/support/k3s-helm-controller.ts (the k3s adoption test's, on
// another branch) is meant to become the one home of its path and start; this file then goes.
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { cacheDir, repoRoot } from '../src/config/pins.js';
import { WaitAborted } from '../src/devstack/wait.js';

/** Where `bash tools/build.sh k3s-helm-controller` puts the pinned build (tools/build.sh build_into). */
export function k3sHelmControllerPath(): string {
  const pins = JSON.parse(readFileSync(path.join(repoRoot, 'tools', 'pins.json'), 'utf8')) as Record<string, string>;
  const version = pins['k3s-helm-controller'];
  if (version === undefined) throw new Error('tools/pins.json pins no k3s-helm-controller');
  return path.join(cacheDir(), 'tools', `k3s-helm-controller-${version}`, 'helm-controller');
}

/** The pinned build, built now if it is not cached yet (a Go module build; minutes the first time). */
export function ensureK3sHelmController(): string {
  const binary = k3sHelmControllerPath();
  if (existsSync(binary)) return binary;
  const built = spawnSync('bash', [path.join(repoRoot, 'tools', 'build.sh'), 'k3s-helm-controller'], {
    stdio: 'inherit',
  });
  if (built.status !== 0 || !existsSync(binary)) throw new Error('tools/build.sh k3s-helm-controller failed');
  return binary;
}

export interface RunningK3sHelmController {
  pid: number;
  /** True once it has its Lease and has started its controllers; throws WaitAborted if it exited before that. */
  isStarted: () => boolean;
  stop: () => Promise<void>;
}

/**
 * The controller against `kubeconfig`, watching HelmCharts of helm.cattle.io in every namespace (it creates that
 * group's CRDs itself). Its install Jobs run rancher/klipper-helm's entrypoint, which a native node cannot run.
 */
export function startK3sHelmController(kubeconfig: string): RunningK3sHelmController {
  const child = spawn(ensureK3sHelmController(), ['--kubeconfig', kubeconfig], {
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  const pid = child.pid;
  if (pid === undefined) throw new Error('could not start k3s helm-controller');
  let tail = '';
  let started = false;
  let gone = false;
  child.stderr.on('data', (chunk: Buffer) => {
    tail = (tail + chunk.toString()).slice(-4000);
    started ||= tail.includes('All controllers have been started');
  });
  const exited = new Promise<void>((resolve) =>
    child.once('exit', () => {
      gone = true;
      resolve();
    }),
  );
  return {
    pid,
    isStarted: () => {
      if (gone && !started) throw new WaitAborted(`k3s helm-controller exited before it started:\n${tail}`);
      return started;
    },
    stop: async () => {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
      const killer = setTimeout(() => child.kill('SIGKILL'), 10_000);
      await exited;
      clearTimeout(killer);
    },
  };
}
