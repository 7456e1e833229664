import { spawn } from 'node:child_process';
import {
  mkdirSync,
  openSync,
  readFileSync,
  readdirSync,
  readlinkSync,
  rmSync,
  writeFileSync,
  closeSync,
} from 'node:fs';
import path from 'node:path';
import { waitFor } from '../lib/wait.js';

/** A daemon started by the stack: detached, in its own process group, logging to its own file. */
export interface DaemonSpec {
  command: string;
  args: string[];
  logFile: string;
  pidFile: string;
  env?: NodeJS.ProcessEnv;
  cwd?: string;
}

export function startDaemon(spec: DaemonSpec): number {
  mkdirSync(path.dirname(spec.logFile), { recursive: true });
  mkdirSync(path.dirname(spec.pidFile), { recursive: true });
  const log = openSync(spec.logFile, 'a');
  try {
    const child = spawn(spec.command, spec.args, {
      detached: true,
      stdio: ['ignore', log, log],
      env: spec.env ?? process.env,
      cwd: spec.cwd,
    });
    if (child.pid === undefined) throw new Error(`could not start ${spec.command}`);
    child.unref();
    writeFileSync(spec.pidFile, `${child.pid}\n`);
    return child.pid;
  } finally {
    closeSync(log);
  }
}

function cmdline(pid: number): string | undefined {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').join(' ');
  } catch {
    return undefined;
  }
}

/**
 * Whether every thread of `pid` has ended. A killed multi-threaded process (the Go servers of the stack) shows its
 * leader as a zombie while its other threads are still exiting, and those still hold its files and ports: a
 * restart started then could not bind the port the dying one listened on.
 */
function threadsEnded(pid: number): boolean {
  let tasks: string[];
  try {
    tasks = readdirSync(`/proc/${pid}/task`);
  } catch {
    return true;
  }
  return tasks.every((tid) => {
    try {
      return /\) [ZX] /.test(readFileSync(`/proc/${pid}/task/${tid}/stat`, 'utf8'));
    } catch {
      return true;
    }
  });
}

/** True while `pid` runs and is still the program we started (a recycled pid is not ours). */
export function isRunning(pid: number, command: string): boolean {
  const line = cmdline(pid);
  if (line === undefined || threadsEnded(pid)) return false;
  return line.includes(path.basename(command));
}

export function readPid(pidFile: string): number | undefined {
  try {
    const pid = Number.parseInt(readFileSync(pidFile, 'utf8').trim(), 10);
    return Number.isFinite(pid) ? pid : undefined;
  } catch {
    return undefined;
  }
}

function signalGroup(pid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(-pid, signal);
  } catch {
    try {
      process.kill(pid, signal);
    } catch {
      // already gone
    }
  }
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  return !threadsEnded(pid);
}

/** TERM to the process group, a grace period, then KILL: the way a kubelet stops a container. */
export async function stopProcess(pid: number, graceMs = 10_000): Promise<void> {
  if (!alive(pid)) return;
  signalGroup(pid, 'SIGTERM');
  try {
    await waitFor(`process ${pid} to exit`, () => !alive(pid), { timeoutMs: graceMs, intervalMs: 100 });
  } catch {
    signalGroup(pid, 'SIGKILL');
    await waitFor(`process ${pid} to die`, () => !alive(pid), { timeoutMs: 5_000, intervalMs: 50 });
  }
}

export async function stopDaemon(pidFile: string, graceMs?: number): Promise<void> {
  const pid = readPid(pidFile);
  if (pid !== undefined) await stopProcess(pid, graceMs);
  rmSync(pidFile, { force: true });
}

/**
 * Every live process whose command line or working directory lies under `dir`: the stack's daemons and the
 * pod processes the native node started. Used as the last sweep of stop, and by tests to prove nothing is left.
 */
export function processesUnder(dir: string): { pid: number; cmdline: string }[] {
  const found: { pid: number; cmdline: string }[] = [];
  for (const entry of readdirSync('/proc')) {
    const pid = Number(entry);
    if (!Number.isInteger(pid) || pid === process.pid) continue;
    const line = cmdline(pid);
    if (line === undefined || line === '') continue;
    let cwd = '';
    try {
      cwd = readlinkSync(`/proc/${pid}/cwd`);
    } catch {
      continue;
    }
    if ((line.includes(dir) || cwd === dir || cwd.startsWith(dir + path.sep)) && alive(pid)) {
      found.push({ pid, cmdline: line });
    }
  }
  return found;
}
