import { isRunning, readPid } from '../../../src/devstack/process.js';
import { startStack } from '../../../src/devstack/stack.js';
import { waitFor } from '../../../src/lib/wait.js';
import type { Component } from '../../../src/devstack/layout.js';
import { testLayout, testLog, testStackOptions } from './stack.js';

/**
 * `kill -9` of one component of the test stack (the process itself, not its group: a native node's pods run in
 * groups of their own and outlive it, as they would a crashed kubelet). Nothing is given a chance to clean up.
 * Resolves with the pid once the process is gone.
 */
export async function crashComponent(component: Component): Promise<number> {
  const layout = testLayout();
  const pid = readPid(layout.pidFile(component));
  if (pid === undefined) throw new Error(`${component} has no pid file in ${layout.stateDir}: is the stack running?`);
  process.kill(pid, 'SIGKILL');
  await waitFor(`${component} (pid ${pid}) to die`, () => !isRunning(pid, ''), { timeoutMs: 10_000, intervalMs: 20 });
  return pid;
}

/** Starts whatever component of the test stack is not running (the others are reused) and waits until all serve. */
export async function restartStack(): Promise<void> {
  await startStack(testLayout(), testLog, testStackOptions);
}
