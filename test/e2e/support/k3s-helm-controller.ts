// k3s's own helm-controller, built from its Go module at the version tools/pins.json pins, for the k3s adoption
// test and the side-by-side benchmark. No jest here, so bench/ imports it too. helmflow itself never runs it.
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { createWriteStream, existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { cacheDir, repoRoot } from '../../../src/config/pins.js';
import { WaitAborted } from '../../../src/lib/wait.js';

/** The pinned version (a test- and bench-only pin, so not among the stack's Pins). */
export function k3sHelmControllerVersion(): string {
  const pins = JSON.parse(readFileSync(path.join(repoRoot, 'tools', 'pins.json'), 'utf8')) as Record<string, string>;
  const version = pins['k3s-helm-controller'];
  if (version === undefined) throw new Error('tools/pins.json pins no k3s-helm-controller');
  return version;
}

/** Where `bash tools/build.sh k3s-helm-controller` puts the binary (`go install` names it helm-controller). */
export function k3sHelmControllerPath(): string {
  return path.join(cacheDir(), 'tools', `k3s-helm-controller-${k3sHelmControllerVersion()}`, 'helm-controller');
}

/**
 * The binary, built first when missing (a few minutes on a cold Go cache; cached after). Building is what
 * tools/build.sh does: nothing but Go modules is downloaded, and never at run time of a test once set up.
 */
export function ensureK3sHelmController(): string {
  const binary = k3sHelmControllerPath();
  if (!existsSync(binary)) {
    execFileSync('bash', [path.join(repoRoot, 'tools', 'build.sh'), 'k3s-helm-controller'], { stdio: 'inherit' });
  }
  if (!existsSync(binary)) throw new Error(`tools/build.sh k3s-helm-controller did not produce ${binary}`);
  return binary;
}

export interface K3sHelmControllerOptions {
  kubeconfig: string;
  /** Its log (stdout and stderr); kept for a post-mortem. */
  logFile: string;
  /**
   * --controller-name: names its leader Lease (kube-system/<name>-lock) and the managed-by annotation it puts on
   * each HelmChart. k3s runs it as `helm-controller`.
   */
  controllerName?: string;
}

export interface RunningK3sHelmController {
  child: ChildProcess;
  pid: number;
  /** True once it has led and started its controllers (its log says so); throws if it exited before that. */
  isStarted: () => boolean;
  /** Settles when the process has exited and all its output is in the log. */
  done: Promise<void>;
  /** SIGTERM (it releases its Lease on the way out), then SIGKILL after 10 s; resolves once it is gone. */
  stop: () => Promise<void>;
}

/** Starts k3s's helm-controller against a kubeconfig: it creates its CRDs, then leads and reconciles HelmCharts. */
export function startK3sHelmController(options: K3sHelmControllerOptions): RunningK3sHelmController {
  const args = ['--kubeconfig', options.kubeconfig, '--controller-name', options.controllerName ?? 'helm-controller'];
  const child = spawn(ensureK3sHelmController(), args, { stdio: ['ignore', 'pipe', 'pipe'] });
  const log = createWriteStream(options.logFile, { flags: 'a' });
  // Two sources into one file: neither may end it, or the other's last output is a write after end (an uncaught
  // error that fails whichever test is running). It is ended once both have closed.
  child.stdout.pipe(log, { end: false });
  child.stderr.pipe(log, { end: false });
  const { pid } = child;
  if (pid === undefined) throw new Error(`could not start ${args[0] ?? 'k3s helm-controller'}`);
  let tail = '';
  let started = false;
  child.stderr.on('data', (chunk: Buffer) => {
    tail = (tail + chunk.toString()).slice(-4000);
    started ||= tail.includes('All controllers have been started');
  });
  // 'close', not 'exit': output can still arrive after the process exits; 'close' follows the end of both streams.
  const done = new Promise<void>((resolve) => {
    child.on('close', () => {
      log.end();
      resolve();
    });
  });
  const running = () => child.exitCode === null && child.signalCode === null;
  return {
    child,
    pid,
    isStarted: () => {
      if (!started && !running()) throw new WaitAborted(`k3s helm-controller exited before it started:\n${tail}`);
      return started;
    },
    done,
    stop: async () => {
      if (running()) child.kill('SIGTERM');
      const killer = setTimeout(() => {
        if (running()) child.kill('SIGKILL');
      }, 10_000);
      await done;
      clearTimeout(killer);
    },
  };
}
