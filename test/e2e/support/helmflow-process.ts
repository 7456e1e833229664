import { spawn, type ChildProcess } from 'node:child_process';
import { readdirSync, statSync } from 'node:fs';
import { deepStrictEqual } from 'node:assert';
import path from 'node:path';
import type { ControllerHooks } from '../../../src/app/controller-process.js';
import { type Settings } from '../../../src/app/settings.js';
import { repoRoot } from '../../../src/config/pins.js';
import { parseSettings } from './settings.js';

/** The compiled CLI (`npm run build`), the `helmflow` of package.json's `bin` and of the image. */
export const compiledMain = path.join(repoRoot, 'dist', 'src', 'cli', 'main.js');

let checked = false;

/**
 * node's arguments to run the helmflow CLI: the compiled entry, as in production. A build older than any source
 * file is refused, so a test never passes or fails on code that is no longer there.
 */
export function helmflowCommand(runtime: 'compiled' | 'tsx' = 'compiled'): string[] {
  if (runtime === 'tsx') return ['--import', 'tsx', path.join(repoRoot, 'src', 'cli', 'main.ts')];
  if (!checked) {
    const built = statSync(compiledMain, { throwIfNoEntry: false })?.mtimeMs;
    if (built === undefined) throw new Error(`${compiledMain} is missing: run \`npm run build\``);
    for (const dir of ['src', 'workflows', 'activities']) {
      for (const file of readdirSync(path.join(repoRoot, dir), { recursive: true, encoding: 'utf8' })) {
        if (file.endsWith('.ts') && statSync(path.join(repoRoot, dir, file)).mtimeMs > built) {
          throw new Error(`${dir}/${file} is newer than dist/: run \`npm run build\``);
        }
      }
    }
    checked = true;
  }
  return [compiledMain];
}

/** Every setting as its flag, so the process runs with exactly `settings` whatever its environment holds. */
export function settingsArgs(settings: Settings): string[] {
  const values: Record<string, string | undefined> = {
    '--group': settings.group,
    '--kubeconfig': settings.kubeconfig,
    '--temporal-address': settings.temporalAddress,
    '--temporal-namespace': settings.temporalNamespace,
    '--temporal-tls-cert': settings.temporalTls.cert,
    '--temporal-tls-key': settings.temporalTls.key,
    '--temporal-tls-ca': settings.temporalTls.ca,
    '--temporal-tls-server-name': settings.temporalTls.serverName,
    '--temporal-tls': settings.temporalTls.enabled === undefined ? undefined : String(settings.temporalTls.enabled),
    '--temporal-api-key': settings.temporalApiKey,
    '--task-queue': settings.taskQueue,
    '--lease-namespace': settings.leaseNamespace,
    '--lease-name': settings.leaseName,
    '--lease-duration-seconds': String(settings.leaseDurationSeconds),
    '--lease-renew-deadline-seconds': String(settings.leaseRenewDeadlineSeconds),
    '--lease-retry-period-seconds': String(settings.leaseRetryPeriodSeconds),
    '--manifests-dir': settings.manifestsDir,
    '--http-port': String(settings.httpPort),
    '--http-host': settings.httpHost,
    '--job-image': settings.jobImage,
    '--cluster-role': settings.clusterRole,
    '--api-server-port': settings.apiServerPort?.toString(),
    '--tuning': settings.tuning === undefined ? undefined : JSON.stringify(settings.tuning),
    '--activity-slots': String(settings.activitySlots),
    '--max-running-jobs': String(settings.maxRunningJobs),
    '--workflow-cache': String(settings.workflowCache),
    '--resync-seconds': String(settings.resyncSeconds),
    '--disable-leader-election': settings.disableLeaderElection ? 'true' : undefined,
  };
  const args: string[] = [];
  for (const [flag, value] of Object.entries(values)) {
    if (value !== undefined) args.push(`${flag}=${value}`);
  }
  // A setting added to Settings but not above would silently take its default in the process: refuse that.
  deepStrictEqual(parseSettings(args), settings, 'a setting is not passed to the helmflow process');
  return args;
}

/**
 * The controller hooks a test can observe in a process, read from its log lines; `onLine` sees every line (at info
 * and above), so a test can say what the process did about one chart when it fails.
 */
export type ProcessHooks = Pick<ControllerHooks, 'onLeading' | 'onSignal'> & {
  onLine?: (entry: { msg?: string; chart?: string }) => void;
};

const hookOfMessage: Record<string, (hooks: ProcessHooks) => void> = {
  leading: (hooks) => hooks.onLeading?.(true),
  'not leading': (hooks) => hooks.onLeading?.(false),
  'signalled desired state': (hooks) => hooks.onSignal?.('desired'),
  'signalled delete': (hooks) => hooks.onSignal?.('delete'),
};

/** pino's numeric levels, for the lines a test shows (HELMFLOW_TEST_LOG_LEVEL, default warn). */
const levels: Record<string, number> = { trace: 10, debug: 20, info: 30, warn: 40, error: 50, fatal: 60 };

export interface HelmflowProcess {
  child: ChildProcess;
  /** Settles when the process exits, by `stop`, `kill` or by itself. */
  done: Promise<void>;
  /** Resolves once the process logs a line whose message is `message`; rejects if it exits first. */
  logged: (message: string) => Promise<void>;
  /** SIGTERM, then requires a clean exit (0) within its shutdown. */
  stop: () => Promise<void>;
  /** SIGKILL: nothing given up, reported or drained, as after a crash. Resolves once the process is gone. */
  kill: () => Promise<void>;
}

/**
 * `helmflow <role>` in a process of its own with `settings`, logging at info so `hooks` see its lines; `extraEnv`
 * is added to its environment (a variable set to undefined is left out).
 */
export function spawnHelmflow(
  role: 'controller' | 'worker' | 'run',
  settings: Settings,
  hooks: ProcessHooks = {},
  runtime: 'compiled' | 'tsx' = 'compiled',
  nodeFlags: string[] = [],
  extraEnv: NodeJS.ProcessEnv = {},
): HelmflowProcess {
  const env: NodeJS.ProcessEnv = { ...process.env, ...extraEnv, HELMFLOW_LOG_LEVEL: 'info' };
  env.NODE_OPTIONS = undefined; // jest's --experimental-vm-modules is not helmflow's
  const args = [...nodeFlags, ...helmflowCommand(runtime), role, ...settingsArgs(settings)];
  const child = spawn(process.execPath, args, {
    cwd: repoRoot,
    env,
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  const shown = levels[process.env.HELMFLOW_TEST_LOG_LEVEL ?? 'warn'] ?? 40;
  const seen = new Set<string>();
  const waiters: { message: string; resolve: () => void; reject: (err: Error) => void }[] = [];
  let tail = '';
  let partial = '';
  child.stderr.on('data', (chunk: Buffer) => {
    const lines = (partial + chunk.toString()).split('\n');
    partial = lines.pop() ?? '';
    for (const line of lines) {
      tail = (tail + line + '\n').slice(-4000);
      let entry: { level?: number; msg?: string; chart?: string } = {};
      try {
        entry = JSON.parse(line) as typeof entry;
      } catch {
        process.stderr.write(`${line}\n`); // not a log line (a crash's stack): always shown
        continue;
      }
      if ((entry.level ?? 0) >= shown) process.stderr.write(`${line}\n`);
      const message = entry.msg ?? '';
      seen.add(message);
      hookOfMessage[message]?.(hooks);
      hooks.onLine?.(entry);
      for (const w of waiters.filter((x) => x.message === message)) {
        waiters.splice(waiters.indexOf(w), 1);
        w.resolve();
      }
    }
  });
  const exited = new Promise<void>((resolve) => {
    child.on('exit', (code, signal) => {
      for (const w of waiters.splice(0)) {
        w.reject(new Error(`helmflow ${role} exited (${String(code ?? signal)}) before logging "${w.message}"`));
      }
      resolve();
    });
  });
  const running = () => child.exitCode === null && child.signalCode === null;
  return {
    child,
    done: exited,
    logged: (message) =>
      new Promise<void>((resolve, reject) => {
        if (seen.has(message)) resolve();
        else if (!running()) reject(new Error(`helmflow ${role} already exited`));
        else waiters.push({ message, resolve, reject });
      }),
    stop: async () => {
      if (running()) child.kill('SIGTERM');
      await exited;
      if (child.exitCode !== 0 && child.signalCode !== 'SIGKILL') {
        throw new Error(
          `helmflow ${role} did not exit cleanly (${String(child.exitCode ?? child.signalCode)}):\n${tail}`,
        );
      }
    },
    kill: async () => {
      if (running()) child.kill('SIGKILL');
      await exited;
    },
  };
}
