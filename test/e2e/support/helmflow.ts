import { pino } from 'pino';
import { runController, type ControllerHooks } from '../../../src/app/controller-process.js';
import { resolveSettings, type Settings } from '../../../src/app/settings.js';
import { runWorker } from '../../../src/app/worker-process.js';
import { testLayout } from './stack.js';

export interface RunningHelmflow {
  settings: Settings;
  stopController(): Promise<void>;
  stopWorker(): Promise<void>;
  stop(): Promise<void>;
}

let counter = 0;

/**
 * helmflow's controller and worker, in this test process, against the test stack: a task queue and Lease of
 * their own per call, so test files never act on each other's charts' workflows. Backoffs are shortened.
 */
export function startHelmflow(overrides: Partial<Settings> = {}, hooks: ControllerHooks = {}): RunningHelmflow {
  counter += 1;
  const layout = testLayout();
  const id = `${process.pid}-${counter}`;
  const settings: Settings = {
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
  const log = pino({ level: process.env.HELMFLOW_TEST_LOG_LEVEL ?? 'warn' }, pino.destination(2));
  const controllerStop = new AbortController();
  const workerStop = new AbortController();
  const controller = runController(settings, log.child({ role: 'controller' }), controllerStop.signal, hooks);
  const worker = runWorker(settings, log.child({ role: 'worker' }), workerStop.signal);
  const stopController = async () => {
    controllerStop.abort();
    await controller;
  };
  const stopWorker = async () => {
    workerStop.abort();
    await worker;
  };
  return {
    settings,
    stopController,
    stopWorker,
    stop: async () => {
      await Promise.all([stopController(), stopWorker()]);
    },
  };
}
