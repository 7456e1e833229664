import { existsSync, mkdirSync, rmSync, symlinkSync } from 'node:fs';
import { homedir } from 'node:os';
import path from 'node:path';
import type { Logger } from 'pino';
import { toolPaths, type ToolPaths } from '../config/pins.js';
import { componentSpecs, type ComponentSpec, type StackOptions } from './components.js';
import { defaultPorts, StackLayout, type Component } from './layout.js';
import { ensurePki } from './pki.js';
import { isRunning, processesUnder, readPid, startDaemon, stopDaemon, stopProcess } from './process.js';
import { waitFor, WaitAborted } from '../lib/wait.js';

/** Where the user's embedded stack lives unless HELMFLOW_STACK_DIR says otherwise. */
export function defaultStackLayout(): StackLayout {
  const dir = process.env.HELMFLOW_STACK_DIR ?? path.join(homedir(), '.helmflow', 'stack');
  return new StackLayout(dir, defaultPorts);
}

export interface ComponentStatus {
  name: Component;
  pid: number | undefined;
  running: boolean;
  ready: boolean;
  logFile: string;
}

function missingTools(tools: ToolPaths): string[] {
  return (Object.values(tools) as string[]).filter((file) => !existsSync(file));
}

/** helm and kubectl at their pinned builds, first on every native pod's PATH. */
function linkNodeBinaries(layout: StackLayout, tools: ToolPaths): void {
  mkdirSync(layout.nodeBinDir, { recursive: true });
  for (const [name, target] of [
    ['helm', tools.helm],
    ['kubectl', tools.kubectl],
  ] as const) {
    const link = path.join(layout.nodeBinDir, name);
    rmSync(link, { force: true });
    symlinkSync(target, link);
  }
}

async function isReady(spec: ComponentSpec): Promise<boolean> {
  try {
    return await spec.ready();
  } catch {
    return false;
  }
}

function pidOf(layout: StackLayout, spec: ComponentSpec): number | undefined {
  const pid = readPid(layout.pidFile(spec.name));
  return pid !== undefined && isRunning(pid, spec.command) ? pid : undefined;
}

/**
 * Starts each component in order and waits for it to be ready; a component already running is reused, so
 * starting twice is harmless. Returns once the whole stack serves.
 */
export async function startStack(layout: StackLayout, log: Logger, options: StackOptions = {}): Promise<void> {
  const tools = toolPaths();
  const missing = missingTools(tools);
  if (missing.length > 0) {
    throw new Error(`the pinned tools are not built (${missing.join(', ')}): run \`npm run setup\` first`);
  }
  for (const dir of [layout.stateDir, layout.logsDir, layout.podsDir]) mkdirSync(dir, { recursive: true });
  await ensurePki(layout);
  linkNodeBinaries(layout, tools);
  for (const spec of componentSpecs(layout, tools, options)) {
    const started = Date.now();
    let pid = pidOf(layout, spec);
    if (pid === undefined) {
      pid = startDaemon({
        command: spec.command,
        args: spec.args,
        env: spec.env,
        logFile: layout.logFile(spec.name),
        pidFile: layout.pidFile(spec.name),
        cwd: layout.stateDir,
      });
      log.info({ component: spec.name, pid, log: layout.logFile(spec.name) }, 'starting');
    } else {
      log.info({ component: spec.name, pid }, 'already running, reusing');
    }
    const daemonPid = pid;
    await waitFor(
      `${spec.name} to be ready (log: ${layout.logFile(spec.name)})`,
      async () => {
        if (!isRunning(daemonPid, spec.command)) {
          throw new WaitAborted(`${spec.name} exited; see ${layout.logFile(spec.name)}`);
        }
        return isReady(spec);
      },
      { timeoutMs: spec.startTimeoutMs, intervalMs: 200 },
    );
    log.info({ component: spec.name, ms: Date.now() - started }, 'ready');
  }
}

export async function stackStatus(layout: StackLayout, options: StackOptions = {}): Promise<ComponentStatus[]> {
  const specs = componentSpecs(layout, toolPaths(), options);
  return Promise.all(
    specs.map(async (spec) => {
      const pid = pidOf(layout, spec);
      return {
        name: spec.name,
        pid,
        running: pid !== undefined,
        ready: pid !== undefined && existsSync(layout.tokenFile) && (await isReady(spec)),
        logFile: layout.logFile(spec.name),
      };
    }),
  );
}

/** Stops the components in reverse order, then sweeps any process still working under the state directory. */
export async function stopStack(layout: StackLayout, log: Logger): Promise<void> {
  // helmflow first, so it gives up its Lease and drains while the apiserver and Temporal still answer.
  await stopDaemon(layout.pidFile('helmflow'), 15_000);
  const specs = componentSpecs(layout, toolPaths());
  for (const spec of [...specs].reverse()) {
    const pid = readPid(layout.pidFile(spec.name));
    if (pid !== undefined) log.info({ component: spec.name, pid }, 'stopping');
    await stopDaemon(layout.pidFile(spec.name));
  }
  for (const leftover of processesUnder(layout.stateDir)) {
    log.warn({ pid: leftover.pid, cmdline: leftover.cmdline }, 'stopping a leftover process');
    await stopProcess(leftover.pid, 2_000);
  }
}
