import type { ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { settingsOf, type Settings } from '../../../src/app/settings.js';
import { installCrds } from './crds.js';
import { spawnHelmflow, type ProcessHooks } from './helmflow-process.js';
import { testLayout } from './stack.js';

export interface RunningHelmflow {
  settings: Settings;
  stopController(): Promise<void>;
  stopWorker(): Promise<void>;
  stop(): Promise<void>;
}

/** One helmflow role in its own compiled process; `stop` shuts it down gracefully (a controller gives up its Lease). */
export interface RunningRole {
  settings: Settings;
  pid: number;
  /** Settles when the role ends, by `stop` or by itself. */
  done: Promise<void>;
  stop: () => Promise<void>;
}

let counter = 0;
/**
 * Jest runs every e2e file in one process (--runInBand) but loads this module anew for each file, so the pid and
 * the counter alone repeat from file to file: a later file's worker would poll an earlier file's task queue and
 * run its left-over charts' workflows (recreating their Jobs), and its controller would wait for that file's Lease.
 */
const fileToken = randomBytes(3).toString('hex');

/**
 * Settings for helmflow against the test stack: a task queue and Lease of their own per call, so test files
 * never act on each other's charts' workflows. Backoffs and Lease timings are shortened. Pass the result to several
 * `startController` / `startWorker` calls to run them as one helmflow installation.
 */
export function helmflowSettings(overrides: Partial<Settings> = {}): Settings {
  counter += 1;
  const layout = testLayout();
  const id = `${process.pid}-${fileToken}-${counter}`;
  return {
    ...settingsOf(),
    kubeconfig: layout.adminKubeconfig,
    temporalAddress: layout.temporalAddress,
    taskQueue: `helmflow-e2e-${id}`,
    leaseName: `helmflow-e2e-${id}`,
    manifestsDir: '',
    httpPort: 0,
    apiServerPort: layout.ports.apiserver,
    tuning: { backoffBaseSeconds: 1, backoffMaxSeconds: 4, uninstallTimeoutSeconds: 60 },
    // client-go's Lease timings, not the production defaults: tests that kill a leader wait 15 s for a takeover,
    // not 35 s. The benchmarks pass the production defaults back.
    leaseDurationSeconds: 15,
    leaseRenewDeadlineSeconds: 10,
    leaseRetryPeriodSeconds: 2,
    ...overrides,
  };
}

/** The production Lease timings (the settings' defaults), for benchmarks that must measure what users run. */
export function productionLeaseTimings(): Pick<
  Settings,
  'leaseDurationSeconds' | 'leaseRenewDeadlineSeconds' | 'leaseRetryPeriodSeconds'
> {
  const { leaseDurationSeconds, leaseRenewDeadlineSeconds, leaseRetryPeriodSeconds } = settingsOf();
  return { leaseDurationSeconds, leaseRenewDeadlineSeconds, leaseRetryPeriodSeconds };
}

/** A compiled helmflow process for one role; `stop` is SIGTERM and requires a clean exit. */
function runRole(role: 'controller' | 'worker', settings: Settings, hooks: ProcessHooks = {}): RunningRole {
  const running = spawnHelmflow(role, settings, hooks);
  return { settings, pid: running.child.pid ?? -1, done: running.done, stop: running.stop };
}

/** `helmflow controller` with `settings`; several with the same settings compete for one Lease. */
export function startController(settings: Settings, hooks: ProcessHooks = {}): RunningRole {
  return runRole('controller', settings, hooks);
}

/** `helmflow worker` polling `settings.taskQueue`. */
export function startWorker(settings: Settings): RunningRole {
  return runRole('worker', settings);
}

/** helmflow's controller and worker, two compiled processes, against the test stack (see helmflowSettings). */
export function startHelmflow(overrides: Partial<Settings> = {}, hooks: ProcessHooks = {}): RunningHelmflow {
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

/** A helmflow role a test can SIGKILL as a crash would. */
export interface ChildRole {
  child: ChildProcess;
  /** Resolves once the process logs `message` (e.g. "leading"); rejects if it exits first. */
  printed(message: string): Promise<void>;
  /** SIGKILL: no Lease given up, no activity reported, nothing drained. Resolves once the process is gone. */
  kill(): Promise<void>;
}

export function spawnRole(role: 'controller' | 'worker', settings: Settings): ChildRole {
  const running = spawnHelmflow(role, settings);
  return { child: running.child, printed: running.logged, kill: running.kill };
}
