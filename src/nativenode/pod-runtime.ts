import { type CoreV1Api, type V1Container, type V1ContainerState, type V1Pod } from '@kubernetes/client-node';
import { spawn, type ChildProcess } from 'node:child_process';
import {
  closeSync,
  existsSync,
  mkdirSync,
  openSync,
  readFileSync,
  readdirSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import path from 'node:path';
import { setTimeout as pause } from 'node:timers/promises';
import type { Logger } from 'pino';
import { renderKubeconfig } from '../devstack/kubeconfig.js';
import { resolveBinary } from './binaries.js';
import { containerEnv, expandEnvReferences } from './env.js';
import { recordPodEvent } from './events.js';
import { containerLogFile, fallbackTerminationMessage } from './logs.js';
import type { NativeNodeOptions } from './options.js';
import { exitCodeOf, type ContainerView, type PodView } from './pod-status.js';
import { PodStatusWriter } from './pod-status-writer.js';
import { finishPodDeletion } from './pod-writes.js';
import { inSandbox } from './sandbox.js';
import { writeServiceAccountTokens } from './tokens.js';
import { materialiseVolumes, type TokenFile, type VolumeDirs } from './volumes.js';

interface ContainerRun {
  spec: V1Container;
  view: ContainerView;
  child?: ChildProcess;
  /** Set once the container will not run again, so the pod's phase can be decided. */
  done: boolean;
}

/** The longest wait between two tries of a deleted pod's last step while the apiserver is away. */
const DELETE_RETRY_MAX_MS = 5_000;
const restartBackoffMs = (restarts: number) => Math.min(2_000 * 2 ** restarts, 60_000);

function terminated(exitCode: number, startedAt: string, reason?: string, message?: string): V1ContainerState {
  const finishedAt = new Date().toISOString();
  return {
    terminated: {
      exitCode,
      reason: reason ?? (exitCode === 0 ? 'Completed' : 'Error'),
      ...(message ? { message } : {}),
      startedAt: startedAt as unknown as Date,
      finishedAt: finishedAt as unknown as Date,
    },
  };
}

/**
 * One pod on the native node: materialises its volumes and token, runs each container's command as a host
 * process in its sandbox, restarts under restartPolicy, reports status like a kubelet, and kills everything
 * when the pod is deleted.
 */
export class PodRuntime {
  private pod: V1Pod;
  private readonly dir: string;
  private readonly log: Logger;
  private readonly timers = new Set<NodeJS.Timeout>();
  private runs: ContainerRun[] = [];
  private initRuns: ContainerRun[] = [];
  private phase: PodView['phase'] = 'Pending';
  private reason: string | undefined;
  private message: string | undefined;
  private startTime: string | undefined;
  private started = false;
  private stopping = false;
  /** Set once the node shuts down or the pod is gone: a deletion still being retried stops trying. */
  private abandoned = false;
  private readonly status: PodStatusWriter;
  private waitingReported = '';

  constructor(
    pod: V1Pod,
    private readonly core: CoreV1Api,
    private readonly options: NativeNodeOptions,
    log: Logger,
  ) {
    this.pod = pod;
    const meta = pod.metadata ?? {};
    this.dir = path.join(options.layout.podsDir, `${meta.namespace ?? ''}_${meta.name ?? ''}_${meta.uid ?? ''}`);
    this.log = log.child({ pod: `${meta.namespace ?? ''}/${meta.name ?? ''}` });
    this.status = new PodStatusWriter(core, meta.namespace ?? '', meta.name ?? '', this.log, () => this.stopping);
  }

  private isStopping(): boolean {
    return this.stopping;
  }

  get uid(): string {
    return this.pod.metadata?.uid ?? '';
  }

  /** The container `kubectl logs` reads when none is named. */
  get firstContainer(): string | undefined {
    return this.pod.spec?.containers[0]?.name;
  }

  get podDir(): string {
    return this.dir;
  }

  /** The log file of a container's current run, or of the run before it. */
  logFile(container: string, previous: boolean): string | undefined {
    const run = [...this.runs, ...this.initRuns].find((r) => r.spec.name === container);
    if (run === undefined) return undefined;
    const count = run.view.restartCount - (previous ? 1 : 0);
    return count < 0 ? undefined : containerLogFile(this.dir, container, count);
  }

  /** True while the container's current run still has a process (a follow stream stays open until then). */
  isRunning(container: string): boolean {
    return [...this.runs, ...this.initRuns].some((r) => r.spec.name === container && r.child !== undefined);
  }

  update(pod: V1Pod): void {
    this.pod = pod;
    if (pod.metadata?.deletionTimestamp !== undefined && !this.stopping) void this.terminate('deleted');
  }

  private later(ms: number, fn: () => void): void {
    const timer = setTimeout(() => {
      this.timers.delete(timer);
      fn();
    }, ms);
    this.timers.add(timer);
  }

  private pathFor(): string {
    return `${this.options.layout.nodeBinDir}:${process.env.PATH ?? '/usr/local/bin:/usr/bin:/bin'}`;
  }

  private missingBinaries(): string[] {
    const containers = [...(this.pod.spec?.initContainers ?? []), ...(this.pod.spec?.containers ?? [])];
    return containers.flatMap((c) => {
      const command = c.command?.[0];
      if (command === undefined) return [`${c.name}: no command (the native node runs commands, not images)`];
      return resolveBinary(command, this.pathFor()) === undefined ? [`${c.name}: ${command}`] : [];
    });
  }

  private view(spec: V1Container, state: V1ContainerState): ContainerRun {
    return { spec, view: { name: spec.name, image: spec.image ?? 'native', restartCount: 0, state }, done: false };
  }

  /** Starts the pod once; a pod whose binary is missing waits, re-checked every recheckSeconds. */
  async start(): Promise<void> {
    if (this.started || this.stopping) return;
    const phase = this.pod.status?.phase;
    if (phase === 'Succeeded' || phase === 'Failed') return;
    const waiting = (reason: string, message: string): V1ContainerState => ({ waiting: { reason, message } });
    this.initRuns = (this.pod.spec?.initContainers ?? []).map((c) => this.view(c, waiting('PodInitializing', '')));
    this.runs = (this.pod.spec?.containers ?? []).map((c) => this.view(c, waiting('ContainerCreating', '')));

    const missing = this.missingBinaries();
    if (missing.length > 0) {
      const message = `the native node cannot run ${missing.join(', ')}: not found on the node's PATH; re-checked every ${this.options.recheckSeconds}s`;
      for (const run of [...this.initRuns, ...this.runs]) run.view.state = waiting('BinaryNotFound', message);
      await this.pushStatus();
      if (this.waitingReported !== message) {
        this.waitingReported = message;
        this.log.warn({ missing }, 'binary not found; pod stays Pending');
        await recordPodEvent(
          this.core,
          this.log,
          this.pod,
          this.options.nodeName,
          'Warning',
          'BinaryNotFound',
          message,
        );
      }
      this.later(this.options.recheckSeconds * 1000, () => void this.start());
      return;
    }

    let volumes: { dirs: VolumeDirs; tokens: TokenFile[] };
    try {
      mkdirSync(this.dir, { recursive: true });
      volumes = await materialiseVolumes(this.core, this.pod, this.dir);
      const lifetime = await writeServiceAccountTokens(this.core, this.pod, volumes.tokens);
      if (Number.isFinite(lifetime)) this.scheduleTokenRefresh(volumes.tokens, lifetime);
    } catch (err) {
      const message = (err as Error).message;
      this.log.warn({ err: message }, 'volumes not ready; retrying');
      await recordPodEvent(this.core, this.log, this.pod, this.options.nodeName, 'Warning', 'FailedMount', message);
      this.later(Math.min(this.options.recheckSeconds, 5) * 1000, () => void this.start());
      return;
    }
    // The pod may have been deleted while its volumes were written.
    if (this.isStopping()) return;
    this.started = true;
    this.startTime = new Date().toISOString();
    this.scheduleDeadline();
    this.mountAll(volumes);
    await recordPodEvent(
      this.core,
      this.log,
      this.pod,
      this.options.nodeName,
      'Normal',
      'Started',
      'Started on the native node',
    );
    await this.runInitContainers();
  }

  private scheduleTokenRefresh(tokens: TokenFile[], lifetimeSeconds: number): void {
    this.later(lifetimeSeconds * 800, () => {
      if (this.stopping) return;
      writeServiceAccountTokens(this.core, this.pod, tokens)
        .then((next) => {
          this.scheduleTokenRefresh(tokens, next);
        })
        .catch((err: unknown) => {
          this.log.warn({ err }, 'token refresh failed; retrying');
          this.scheduleTokenRefresh(tokens, 10);
        });
    });
  }

  private scheduleDeadline(): void {
    const seconds = this.pod.spec?.activeDeadlineSeconds;
    if (seconds === undefined) return;
    this.later(seconds * 1000, () => {
      if (this.phase === 'Succeeded' || this.phase === 'Failed') return;
      void this.fail('DeadlineExceeded', `Pod was active on the node longer than the specified deadline (${seconds}s)`);
    });
  }

  private root(container: string): string {
    return path.join(this.dir, 'containers', container);
  }

  /** Each container gets its own root with its volumes linked at their mount paths. */
  private mountAll(volumes: { dirs: VolumeDirs; tokens: TokenFile[] }): void {
    const containers = [...(this.pod.spec?.initContainers ?? []), ...(this.pod.spec?.containers ?? [])];
    for (const container of containers) {
      const root = this.root(container.name);
      rmSync(root, { recursive: true, force: true });
      mkdirSync(root, { recursive: true });
      for (const dir of ['home', 'tmp']) mkdirSync(path.join(root, dir), { recursive: true });
      for (const mount of container.volumeMounts ?? []) {
        const source = volumes.dirs.get(mount.name);
        if (source === undefined) continue;
        const target = inSandbox(root, mount.mountPath);
        mkdirSync(path.dirname(target), { recursive: true });
        rmSync(target, { recursive: true, force: true });
        symlinkSync(mount.subPath ? inSandbox(source, mount.subPath) : source, target);
      }
      if (container.workingDir) mkdirSync(inSandbox(root, container.workingDir), { recursive: true });
      this.writeKubeconfig(container, volumes);
    }
  }

  /** A kubeconfig using the projected ServiceAccount token, so the apiserver applies that account's RBAC. */
  private writeKubeconfig(container: V1Container, volumes: { dirs: VolumeDirs }): void {
    const root = this.root(container.name);
    for (const mount of container.volumeMounts ?? []) {
      const volume = this.pod.spec?.volumes?.find((v) => v.name === mount.name);
      const tokenSource = volume?.projected?.sources?.find((s) => s.serviceAccountToken !== undefined);
      const dir = volumes.dirs.get(mount.name);
      if (tokenSource?.serviceAccountToken === undefined || dir === undefined) continue;
      const ca = path.join(dir, 'ca.crt');
      writeFileSync(
        path.join(root, '.kubeconfig'),
        renderKubeconfig({
          server: this.options.layout.apiserverUrl,
          caFile: existsSync(ca) ? ca : this.options.layout.caCert,
          tokenFile: inSandbox(dir, tokenSource.serviceAccountToken.path),
        }),
        { mode: 0o600 },
      );
      return;
    }
  }

  private async runInitContainers(): Promise<void> {
    const next = this.initRuns.find((r) => !r.done);
    if (next === undefined) {
      this.phase = 'Running';
      await Promise.all(this.runs.map((run) => this.launch(run)));
      return;
    }
    await this.launch(next);
  }

  private async launch(run: ContainerRun): Promise<void> {
    if (this.stopping) return;
    const spec = run.spec;
    let env: Record<string, string>;
    try {
      env = await containerEnv(this.core, this.pod, spec);
    } catch (err) {
      const message = (err as Error).message;
      run.view.state = { waiting: { reason: 'CreateContainerConfigError', message } };
      await this.pushStatus();
      await recordPodEvent(this.core, this.log, this.pod, this.options.nodeName, 'Warning', 'Failed', message);
      this.later(5_000, () => void this.launch(run));
      return;
    }
    // The pod may have been deleted while its env was read: a process started now would outlive it.
    if (this.isStopping()) return;
    const root = this.root(spec.name);
    const kubeconfig = path.join(root, '.kubeconfig');
    const base: Record<string, string> = {
      PATH: this.pathFor(),
      HOME: path.join(root, 'home'),
      TMPDIR: path.join(root, 'tmp'),
      HOSTNAME: this.pod.metadata?.name ?? '',
      KUBERNETES_SERVICE_HOST: '127.0.0.1',
      KUBERNETES_SERVICE_PORT: String(this.options.layout.ports.apiserver),
      ...(existsSync(kubeconfig) ? { KUBECONFIG: kubeconfig } : {}),
      ...(this.options.trustBundle ? { SSL_CERT_FILE: this.options.trustBundle } : {}),
    };
    const fullEnv = { ...base, ...env };
    const [command = '', ...commandArgs] = (spec.command ?? []).map((a) => expandEnvReferences(a, fullEnv));
    const args = [...commandArgs, ...(spec.args ?? []).map((a) => expandEnvReferences(a, fullEnv))];
    const binary = resolveBinary(command, fullEnv.PATH ?? this.pathFor()) ?? command;
    const logFile = containerLogFile(this.dir, spec.name, run.view.restartCount);
    mkdirSync(path.dirname(logFile), { recursive: true });
    const out = openSync(logFile, 'a');
    const startedAt = new Date().toISOString();
    let child: ChildProcess;
    try {
      child = spawn(binary, args, {
        argv0: command,
        cwd: spec.workingDir ? inSandbox(root, spec.workingDir) : root,
        env: fullEnv,
        // Its own process group, so the whole tree it starts is stopped with it.
        detached: true,
        stdio: ['ignore', out, out],
      });
    } finally {
      closeSync(out);
    }
    run.child = child;
    writeFileSync(path.join(this.dir, `${spec.name}.pid`), `${child.pid ?? ''}\n`);
    run.view.state = { running: { startedAt: startedAt as unknown as Date } };
    this.log.info({ container: spec.name, pid: child.pid, command, restartCount: run.view.restartCount }, 'started');
    child.on('error', (err) => {
      this.log.warn({ container: spec.name, err: err.message }, 'could not start');
    });
    child.on('exit', (code, signal) => {
      run.child = undefined;
      void this.exited(run, exitCodeOf(code, signal), startedAt);
    });
    await this.pushStatus();
  }

  private async exited(run: ContainerRun, exitCode: number, startedAt: string): Promise<void> {
    this.log.info({ container: run.spec.name, exitCode }, 'exited');
    run.view.state = terminated(exitCode, startedAt, undefined, this.terminationMessage(run, exitCode));
    if (this.stopping || this.phase === 'Failed') return;
    const policy = this.pod.spec?.restartPolicy ?? 'Always';
    const restart = policy === 'Always' || (policy === 'OnFailure' && exitCode !== 0);
    if (restart) {
      const delay = restartBackoffMs(run.view.restartCount);
      run.view.lastState = run.view.state;
      run.view.state = { waiting: { reason: 'CrashLoopBackOff', message: `restarting in ${delay / 1000}s` } };
      run.view.restartCount += 1;
      await this.pushStatus();
      this.later(delay, () => void this.launch(run));
      return;
    }
    run.done = true;
    const isInit = this.initRuns.includes(run);
    if (exitCode !== 0) {
      this.phase = 'Failed';
      await this.stopContainers(1_000);
    } else if (isInit) {
      await this.runInitContainers();
      return;
    } else if (this.runs.every((r) => r.done)) {
      this.phase = this.runs.every((r) => r.view.state.terminated?.exitCode === 0) ? 'Succeeded' : 'Failed';
    }
    await this.pushStatus();
    if (this.phase === 'Succeeded' || this.phase === 'Failed') this.clearTimers();
  }

  /** As a kubelet does for FallbackToLogsOnError: a failed container's message is the tail of its log. */
  private terminationMessage(run: ContainerRun, exitCode: number): string | undefined {
    if (exitCode === 0 || run.spec.terminationMessagePolicy !== 'FallbackToLogsOnError') return undefined;
    try {
      const log = readFileSync(containerLogFile(this.dir, run.spec.name, run.view.restartCount), 'utf8');
      return fallbackTerminationMessage(log);
    } catch {
      return undefined;
    }
  }

  private async fail(reason: string, message: string): Promise<void> {
    this.phase = 'Failed';
    this.reason = reason;
    this.message = message;
    await recordPodEvent(this.core, this.log, this.pod, this.options.nodeName, 'Warning', reason, message);
    await this.stopContainers(this.pod.spec?.terminationGracePeriodSeconds ?? 30);
    await this.pushStatus();
    this.clearTimers();
  }

  private clearTimers(): void {
    for (const timer of this.timers) clearTimeout(timer);
    this.timers.clear();
  }

  /** TERM each container's process group, wait up to the grace period, then KILL. */
  private async stopContainers(graceSeconds: number): Promise<void> {
    const children = [...this.runs, ...this.initRuns].flatMap((r) => (r.child ? [r.child] : []));
    await Promise.all(
      children.map(
        (child) =>
          new Promise<void>((resolve) => {
            if (child.exitCode !== null || child.signalCode !== null || child.pid === undefined) {
              resolve();
              return;
            }
            const pid = child.pid;
            const kill = setTimeout(() => {
              try {
                process.kill(-pid, 'SIGKILL');
              } catch {
                // gone already
              }
            }, graceSeconds * 1000);
            child.once('exit', () => {
              clearTimeout(kill);
              // the group may hold children that ignored TERM
              try {
                process.kill(-pid, 'SIGKILL');
              } catch {
                // all gone
              }
              resolve();
            });
            try {
              process.kill(-pid, 'SIGTERM');
            } catch {
              resolve();
            }
          }),
      ),
    );
  }

  /**
   * Pod deletion, or the node shutting down: kill the processes, then let the pod object go. That last step is
   * tried until the apiserver answers (no event would bring it back, and the Job would wait on a Terminating pod),
   * unless the node shuts down meanwhile.
   */
  async terminate(why: 'deleted' | 'shutdown' | 'gone'): Promise<void> {
    if (why !== 'deleted') this.abandoned = true;
    if (this.stopping) return;
    this.stopping = true;
    this.clearTimers();
    const grace = this.pod.metadata?.deletionGracePeriodSeconds ?? this.pod.spec?.terminationGracePeriodSeconds ?? 30;
    await this.stopContainers(why === 'shutdown' ? Math.min(grace, 5) : grace);
    this.log.info({ why }, 'pod processes stopped');
    for (let failures = 1; why === 'deleted' && !this.abandoned; failures += 1) {
      if ((await finishPodDeletion(this.core, this.pod, this.log)) !== 'retry') return;
      await pause(Math.min(250 * 2 ** failures, DELETE_RETRY_MAX_MS));
    }
  }

  /** Removes the sandbox once the pod object is gone. */
  cleanUp(): void {
    rmSync(this.dir, { recursive: true, force: true });
  }

  private pushStatus(): Promise<void> {
    return this.status.write({
      phase: this.phase,
      reason: this.reason,
      message: this.message,
      startTime: this.startTime,
      initContainers: this.initRuns.map((r) => ({ ...r.view })),
      containers: this.runs.map((r) => ({ ...r.view })),
    });
  }

  /** Processes left by a previous native node run, found by their pid files, are killed before anything reruns. */
  static killOrphans(dir: string): void {
    let names: string[];
    try {
      names = readdirSync(dir);
    } catch {
      return;
    }
    for (const name of names.filter((n) => n.endsWith('.pid'))) {
      const pid = Number.parseInt(readFileSync(path.join(dir, name), 'utf8'), 10);
      if (!Number.isInteger(pid) || pid <= 0) continue;
      try {
        process.kill(-pid, 'SIGKILL');
      } catch {
        // not running
      }
    }
  }
}
