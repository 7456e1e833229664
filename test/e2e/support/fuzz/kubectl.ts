import { spawn } from 'node:child_process';
import { toolPaths } from '../../../../src/config/pins.js';
import type { CommandResult } from '../kube.js';
import { testLayout } from '../stack.js';

/** The pinned kubectl against the test stack, without blocking the event loop (kube.ts's kubectl is synchronous). */
export function kubectlAsync(args: string[], input?: string, timeoutMs = 60_000): Promise<CommandResult> {
  return new Promise((resolve) => {
    const child = spawn(toolPaths().kubectl, args, {
      env: { ...process.env, KUBECONFIG: testLayout().adminKubeconfig },
      stdio: ['pipe', 'pipe', 'pipe'],
      timeout: timeoutMs,
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.on('close', (code) => {
      resolve({ status: code ?? -1, stdout, stderr });
    });
    child.stdin.end(input ?? '');
  });
}

/** Runs `tasks` with at most `limit` at once (the machine has two cores), results in order. */
export async function bounded<T>(limit: number, tasks: (() => Promise<T>)[]): Promise<T[]> {
  const results: T[] = new Array<T>(tasks.length);
  let next = 0;
  const lane = async () => {
    while (next < tasks.length) {
      const at = next;
      next += 1;
      const task = tasks[at];
      if (task !== undefined) results[at] = await task();
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, tasks.length) }, lane));
  return results;
}
