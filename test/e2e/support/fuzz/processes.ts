import { spawn, type ChildProcess } from 'node:child_process';
import { createWriteStream, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Settings } from '../../../../src/app/settings.js';
import { repoRoot } from '../../../../src/config/pins.js';
import { stackStatus } from '../../../../src/devstack/stack.js';
import { helmflowCommand, settingsArgs } from '../helmflow-process.js';
import { testLayout, testStackOptions } from '../stack.js';

/** helmflow's controller and worker as processes of their own, logs kept, so a crash shows as an exit. */
export interface FuzzHelmflow {
  /** Every way a process failed so far: an exit, or a fatal or uncaught error in its log. */
  crashes(): Promise<string[]>;
  stop(): Promise<void>;
}

interface Role {
  name: string;
  child: ChildProcess;
  logFile: string;
  exited: Promise<void>;
}

/**
 * The compiled `helmflow <role>` (as every e2e test runs it), its log in a file of its own. The log level is warn:
 * a long run's info lines would fill the disk, and a crash is fatal or an uncaught error either way.
 */
function spawnLogged(role: 'controller' | 'worker', settings: Settings, dir: string): Role {
  const logFile = path.join(dir, `${role}.log`);
  const log = createWriteStream(logFile);
  const env: NodeJS.ProcessEnv = { ...process.env, HELMFLOW_LOG_LEVEL: 'warn' };
  env.NODE_OPTIONS = undefined; // jest's --experimental-vm-modules is not helmflow's
  const child = spawn(process.execPath, [...helmflowCommand(), role, ...settingsArgs(settings)], {
    cwd: repoRoot,
    stdio: ['ignore', 'pipe', 'pipe'],
    env,
  });
  child.stdout.pipe(log, { end: false });
  child.stderr.pipe(log, { end: false });
  const exited = new Promise<void>((resolve) => {
    child.once('exit', () => {
      resolve();
    });
  });
  return { name: role, child, logFile, exited };
}

/** Lines of a pino log at fatal level, or where node reports an uncaught error. */
function crashLines(text: string): string[] {
  return text
    .split('\n')
    .filter((line) => /"level":60|uncaught|unhandled ?rejection|FATAL ERROR|heap out of memory/iu.test(line))
    .map((line) => line.slice(0, 400));
}

export function startFuzzHelmflow(settings: Settings): FuzzHelmflow {
  const dir = mkdtempSync(path.join(tmpdir(), 'helmflow-fuzz-'));
  const roles = [spawnLogged('controller', settings, dir), spawnLogged('worker', settings, dir)];
  let stopping = false;
  return {
    crashes: async () => {
      const found: string[] = [];
      for (const role of roles) {
        const { exitCode, signalCode, pid } = role.child;
        if (!stopping && (exitCode !== null || signalCode !== null)) {
          found.push(
            `helmflow ${role.name} (pid ${pid ?? '?'}) exited (${String(exitCode ?? signalCode)}); log ${role.logFile}`,
          );
        }
        for (const line of crashLines(readFileSync(role.logFile, 'utf8'))) found.push(`helmflow ${role.name}: ${line}`);
      }
      for (const component of await stackStatus(testLayout(), testStackOptions)) {
        if (!component.running) found.push(`stack ${component.name} is not running; log ${component.logFile}`);
      }
      return found;
    },
    stop: async () => {
      stopping = true;
      for (const role of roles) if (role.child.exitCode === null) role.child.kill('SIGTERM');
      // A graceful stop drains the worker; past 30 s it is killed so a run always ends.
      const killLater = setTimeout(() => {
        for (const role of roles) if (role.child.exitCode === null) role.child.kill('SIGKILL');
      }, 30_000);
      await Promise.all(roles.map((r) => r.exited));
      clearTimeout(killLater);
    },
  };
}
