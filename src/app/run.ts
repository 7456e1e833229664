import type { Logger } from 'pino';
import { runController, type ControllerHooks } from './controller-process.js';
import type { Settings } from './settings.js';
import { runWorker } from './worker-process.js';

export type Role = 'controller' | 'worker' | 'run';

/** Runs the chosen roles until SIGTERM/SIGINT, then shuts each down gracefully. */
export async function runRoles(
  role: Role,
  settings: Settings,
  log: Logger,
  hooks: ControllerHooks = {},
): Promise<void> {
  const stop = new AbortController();
  for (const signal of ['SIGTERM', 'SIGINT'] as const) {
    process.once(signal, () => {
      log.info({ signal }, 'shutting down');
      stop.abort();
    });
  }
  const tasks: Promise<void>[] = [];
  if (role !== 'worker') tasks.push(runController(settings, log.child({ role: 'controller' }), stop.signal, hooks));
  if (role !== 'controller') tasks.push(runWorker(settings, log.child({ role: 'worker' }), stop.signal));
  await Promise.all(tasks);
}
