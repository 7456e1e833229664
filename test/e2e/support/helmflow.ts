import { spawn, type ChildProcess } from 'node:child_process';
import { pino, type Logger } from 'pino';
import { runController, type ControllerHooks } from '../../../src/app/controller-process.js';
import { resolveSettings, type Settings } from '../../../src/app/settings.js';
import { runWorker } from '../../../src/app/worker-process.js';
import { installCrds } from './crds.js';
import { testLayout } from './stack.js';

export interface RunningHelmflow {
  settings: Settings;
  stopController(): Promise<void>;
  stopWorker(): Promise<void>;
  stop(): Promise<void>;
}

/** One helmflow role running in this test process; `stop` shuts it down gracefully (a controller gives up its Lease). */
export interface RunningRole {
  settings: Settings;
  /** Settles when the role ends, by `stop` or by itself. */
  done: Promise<void>;
  stop: () => Promise<void>;
}

let counter = 0;

function testLogger(): Logger {
  return pino({ level: process.env.HELMFLOW_TEST_LOG_LEVEL ?? 'warn' }, pino.destination(2));
}

/**
 * Settings for helmflow against the test stack: a task queue and Lease of their own per call, so test files
 * never act on each other's charts' workflows. Backoffs are shortened. Pass the result to several
 * `startController` / `startWorker` calls to run them as one helmflow installation.
 */
export function helmflowSettings(overrides: Partial<Settings> = {}): Settings {
  counter += 1;
  const layout = testLayout();
  const id = `${process.pid}-${counter}`;
  return {
    ...resolveSettings({}, {}),
    kubeconfig: layout.adminKubeconfig,
    temporalAddress: layout.temporalAddress,
    taskQueue: `helmflow-e2e-${id}`,
    leaseName: `helmflow-e2e-${id}`,
    manifestsDir: '',
    httpPort: 0,
    apiServerPort: layout.ports.apiserver,
    tuning: { backoffBaseSeconds: 1, backoffMaxSeconds: 4, uninstallTimeoutSeconds: 60 },
    ...overrides,
  };
}

/** A role run in this process until `stop` aborts it. */
function runRole(settings: Settings, run: (stop: AbortSignal) => Promise<void>): RunningRole {
  const stop = new AbortController();
  const done = run(stop.signal);
  return {
    settings,
    done,
    stop: async () => {
      stop.abort();
      await done;
    },
  };
}

/** A controller in this process with `settings`; several with the same settings compete for one Lease. */
export function startController(settings: Settings, hooks: ControllerHooks = {}): RunningRole {
  return runRole(settings, (stop) => runController(settings, testLogger().child({ role: 'controller' }), stop, hooks));
}

/** A worker in this process polling `settings.taskQueue`. */
export function startWorker(settings: Settings): RunningRole {
  return runRole(settings, (stop) => runWorker(settings, testLogger().child({ role: 'worker' }), stop));
}

/** helmflow's controller and worker, in this test process, against the test stack (see helmflowSettings). */
export function startHelmflow(overrides: Partial<Settings> = {}, hooks: ControllerHooks = {}): RunningHelmflow {
  const settings = helmflowSettings(overrides);
  const controller = startController(settings, hooks);
  const worker = startWorker(settings);
  return {
    settings,
    stopController: controller.stop,
    stopWorker: worker.stop,
    stop: async () => {
      await Promise.all([controller.stop(), worker.stop()]);
    },
  };
}

/**
 * helmflow for a whole test file: its CRDs installed and a controller and worker started before the file's tests,
 * stopped after them. The returned object reads the running one, so it is used like `startHelmflow`'s.
 */
export function useHelmflow(overrides: Partial<Settings> = {}): RunningHelmflow {
  let running: RunningHelmflow | undefined;
  const current = (): RunningHelmflow => {
    if (running === undefined) throw new Error('useHelmflow: helmflow is started in beforeAll; read it in a test');
    return running;
  };
  beforeAll(async () => {
    await installCrds(overrides.group ?? 'helm.k3sm.io');
    running = startHelmflow(overrides);
  });
  afterAll(async () => {
    await running?.stop();
  });
  return {
    get settings() {
      return current().settings;
    },
    stopController: () => current().stopController(),
    stopWorker: () => current().stopWorker(),
    stop: () => current().stop(),
  };
}

/** A helmflow role in a process of its own, so a test can SIGKILL it as a crash would. */
export interface ChildRole {
  child: ChildProcess;
  /** Resolves once the child prints `line` (see helmflow-child.ts); rejects if it exits first. */
  printed(line: string): Promise<void>;
  /** SIGKILL: no Lease given up, no activity reported, nothing drained. Resolves once the process is gone. */
  kill(): Promise<void>;
}

export function spawnRole(role: 'controller' | 'worker', settings: Settings): ChildRole {
  // node itself, not npx, so a SIGKILL reaches the process that runs helmflow.
  const child = spawn(process.execPath, ['--import', 'tsx', 'test/e2e/support/helmflow-child.ts', role], {
    stdio: ['ignore', 'pipe', 'inherit'],
    env: { ...process.env, HELMFLOW_CHILD_SETTINGS: JSON.stringify(settings) },
  });
  let out = '';
  const waiters: { line: string; resolve: () => void; reject: (err: Error) => void }[] = [];
  const settle = () => {
    for (const w of [...waiters]) {
      if (out.split('\n').includes(w.line)) {
        waiters.splice(waiters.indexOf(w), 1);
        w.resolve();
      }
    }
  };
  child.stdout.on('data', (chunk: Buffer) => {
    out += chunk.toString();
    settle();
  });
  const exited = new Promise<void>((resolve) => {
    child.on('exit', (code, signal) => {
      for (const w of waiters.splice(0)) {
        w.reject(new Error(`helmflow ${role} child exited (${String(code ?? signal)}) before printing "${w.line}"`));
      }
      resolve();
    });
  });
  return {
    child,
    printed: (line) =>
      new Promise<void>((resolve, reject) => {
        waiters.push({ line, resolve, reject });
        settle();
        if (child.exitCode !== null || child.signalCode !== null) {
          reject(new Error(`helmflow ${role} child already exited`));
        }
      }),
    kill: async () => {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
      await exited;
    },
  };
}
