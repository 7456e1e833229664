import type { KubeConfig } from '@kubernetes/client-node';
import { EventsV1Api } from '../../kube/k8s.js';
import { randomBytes } from 'node:crypto';
import { EventEmitter } from 'node:events';
import { mkdirSync, readdirSync, readFileSync, statSync, watch, type FSWatcher } from 'node:fs';
import { hostname } from 'node:os';
import path from 'node:path';
import type { Logger } from 'pino';
import { microTime } from '../../kube/micro-time.js';
import { ManifestApplier, describeApplyError, type AppliedObject, MANIFEST_FIELD_MANAGER } from './apply.js';
import { checkManifestDirectory, defaultTrustedUids, manifestFileProblem } from './directory-security.js';
import { isManifestFileName, parseManifest } from './parse.js';
import { MANIFEST_EVENTS_NAMESPACE } from './rbac.js';

/**
 * The auto-deploy directory (README, Operations): every *.yaml, *.yml and *.json file in it is applied at start, on each
 * change (fs.watch), and on every resync sweep, since a watch can miss events and a deleted object should come
 * back while its file remains. Removing a file deletes nothing: the objects it created stay, as in k3s.
 *
 * Problems are reported where an operator looks: a log line and a Warning Event on the kube-system Namespace
 * (`kubectl describe namespace kube-system`, `kubectl get events -n kube-system`), reason ManifestInvalid for a
 * file that does not parse, ManifestApplyFailed for an object the apiserver refused, ManifestDirectoryRefused
 * for a directory others can write. Each distinct problem is reported once, not on every sweep.
 */

export const DEFAULT_MANIFEST_DIRECTORY = '/var/lib/k3sm/manifests';
export const MANIFEST_EVENT_REASONS = {
  invalid: 'ManifestInvalid',
  applyFailed: 'ManifestApplyFailed',
  directoryRefused: 'ManifestDirectoryRefused',
} as const;
export type ManifestEventReason = (typeof MANIFEST_EVENT_REASONS)[keyof typeof MANIFEST_EVENT_REASONS];
/** The reportingController of the Events. */
export const MANIFEST_EVENT_SOURCE = 'helmflow-manifests';

export interface ManifestDirectoryOptions {
  /** The identity files are applied as (see ManifestIdentity); called before each sweep, so tokens can rotate. */
  kubeConfig: () => Promise<KubeConfig> | KubeConfig;
  directory?: string;
  /** Default 30000. */
  resyncIntervalMs?: number;
  /** How long the directory must be quiet after a change before the sweep; coalesces an editor's writes. Default 200. */
  debounceMs?: number;
  /** Where namespaced objects without a namespace go. Default kube-system. */
  defaultNamespace?: string;
  fieldManager?: string;
  /** Owners allowed for the directory and its files. Default root (and the controller's own user). */
  trustedUids?: readonly number[];
  logger?: Logger;
}

export type ManifestFileResult =
  | { file: string; outcome: 'applied'; objects: AppliedObject[] }
  | {
      file: string;
      outcome: 'failed';
      /** ManifestInvalid: nothing in the file was applied; ManifestApplyFailed: some objects were refused. */
      reason: ManifestEventReason;
      objects: AppliedObject[];
      errors: string[];
    };

export interface ManifestSweep {
  directory: string;
  files: ManifestFileResult[];
  /** Set when the directory itself was refused and nothing was applied. */
  refused?: string;
}

export interface ManifestDirectoryEvents {
  swept: [sweep: ManifestSweep];
}

export class ManifestDirectory extends EventEmitter<ManifestDirectoryEvents> {
  readonly directory: string;
  private readonly resyncIntervalMs: number;
  private readonly debounceMs: number;
  private readonly trustedUids: readonly number[];
  private readonly log: Logger | undefined;
  private watcher: FSWatcher | undefined;
  private resync: NodeJS.Timeout | undefined;
  private debounce: NodeJS.Timeout | undefined;
  private chain: Promise<unknown> = Promise.resolve();
  private queued: Promise<ManifestSweep> | undefined;
  /** The last problem reported per file (or for the directory), so each is reported once. */
  private readonly reported = new Map<string, string>();
  private running = false;

  constructor(private readonly options: ManifestDirectoryOptions) {
    super();
    this.directory = path.resolve(options.directory ?? DEFAULT_MANIFEST_DIRECTORY);
    this.resyncIntervalMs = options.resyncIntervalMs ?? 30_000;
    this.debounceMs = options.debounceMs ?? 200;
    this.trustedUids = options.trustedUids ?? defaultTrustedUids();
    this.log = options.logger?.child({ manifests: this.directory });
  }

  /**
   * Creates the directory if missing (mode 0700), refuses it with InsecureManifestPathError if others can write
   * it, runs the first sweep and then watches. Resolves with the first sweep.
   */
  async start(): Promise<ManifestSweep> {
    mkdirSync(this.directory, { recursive: true, mode: 0o700 });
    checkManifestDirectory(this.directory, this.trustedUids);
    this.running = true;
    const first = await this.sweep();
    this.watchDirectory();
    this.resync = setInterval(() => {
      // The watch may have died with a replaced directory; the resync re-establishes it.
      if (this.watcher === undefined) this.watchDirectory();
      this.sweepInBackground();
    }, this.resyncIntervalMs);
    this.resync.unref();
    return first;
  }

  async stop(): Promise<void> {
    this.running = false;
    this.watcher?.close();
    this.watcher = undefined;
    clearInterval(this.resync);
    clearTimeout(this.debounce);
    await this.chain;
  }

  /** A sweep that starts after this call; calls while one is waiting to start share it. */
  sweep(): Promise<ManifestSweep> {
    if (this.queued !== undefined) return this.queued;
    const next = this.chain.then(() => {
      this.queued = undefined;
      return this.sweepOnce();
    });
    this.queued = next;
    this.chain = next.catch(() => undefined);
    return next;
  }

  /** A sweep nobody awaits: its failure (apiserver down, token refused) is logged and the next one retries. */
  private sweepInBackground(): void {
    this.sweep().catch((err: unknown) => {
      this.log?.warn({ err }, 'manifest sweep failed; the next change or resync retries');
    });
  }

  private watchDirectory(): void {
    try {
      this.watcher = watch(this.directory, { persistent: false }, () => {
        this.scheduleSweep();
      });
      this.watcher.on('error', (err) => {
        this.log?.warn({ err }, 'watch of the auto-deploy directory failed; the resync sweep still runs');
        this.watcher?.close();
        this.watcher = undefined;
      });
    } catch (err) {
      this.log?.warn({ err }, 'cannot watch the auto-deploy directory; relying on the resync sweep');
    }
  }

  private scheduleSweep(): void {
    if (!this.running) return;
    clearTimeout(this.debounce);
    this.debounce = setTimeout(() => {
      this.sweepInBackground();
    }, this.debounceMs);
  }

  private async sweepOnce(): Promise<ManifestSweep> {
    const kubeConfig = await this.options.kubeConfig();
    const events = kubeConfig.makeApiClient(EventsV1Api);
    const sweep: ManifestSweep = { directory: this.directory, files: [] };
    try {
      checkManifestDirectory(this.directory, this.trustedUids);
      this.reported.delete(this.directory);
    } catch (err) {
      sweep.refused = (err as Error).message;
      await this.report(events, this.directory, MANIFEST_EVENT_REASONS.directoryRefused, sweep.refused);
      this.emit('swept', sweep);
      return sweep;
    }
    const applier = new ManifestApplier(
      kubeConfig,
      this.options.defaultNamespace,
      this.options.fieldManager ?? MANIFEST_FIELD_MANAGER,
    );
    const names = readdirSync(this.directory).filter(isManifestFileName).sort();
    for (const name of names) {
      const result = await this.applyFile(applier, path.join(this.directory, name));
      sweep.files.push(result);
      if (result.outcome === 'applied') {
        this.reported.delete(result.file);
      } else {
        // Parse and permission errors name the file already; apply errors name only their object.
        const errors = result.errors.join('; ');
        const message = result.reason === MANIFEST_EVENT_REASONS.applyFailed ? `${result.file}: ${errors}` : errors;
        await this.report(events, result.file, result.reason, message);
      }
    }
    // Files that are gone need no report any more; a new file of the same name is reported afresh.
    for (const file of this.reported.keys()) {
      if (file !== this.directory && !names.includes(path.basename(file))) this.reported.delete(file);
    }
    this.log?.debug(
      { applied: sweep.files.filter((f) => f.outcome === 'applied').length, files: sweep.files.length },
      'manifest sweep done',
    );
    this.emit('swept', sweep);
    return sweep;
  }

  private async applyFile(applier: ManifestApplier, file: string): Promise<ManifestFileResult> {
    let objects;
    try {
      const problem = manifestFileProblem(statSync(file), this.trustedUids);
      if (problem !== undefined) throw new Error(`refusing ${file}: ${problem}`);
      objects = parseManifest(file, readFileSync(file, 'utf8'));
    } catch (err) {
      // Vanished between listing and reading: an editor's rename; the next sweep sees the new file.
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return { file, outcome: 'applied', objects: [] };
      return {
        file,
        outcome: 'failed',
        reason: MANIFEST_EVENT_REASONS.invalid,
        objects: [],
        errors: [(err as Error).message],
      };
    }
    const applied: AppliedObject[] = [];
    const errors: string[] = [];
    for (const object of objects) {
      try {
        applied.push(await applier.apply(object));
      } catch (err) {
        const ns = object.metadata.namespace;
        const what = `${object.kind} ${ns === undefined ? '' : `${ns}/`}${object.metadata.name}`;
        errors.push(`apply ${what}: ${describeApplyError(err)}`);
      }
    }
    return errors.length === 0
      ? { file, outcome: 'applied', objects: applied }
      : { file, outcome: 'failed', reason: MANIFEST_EVENT_REASONS.applyFailed, objects: applied, errors };
  }

  private async report(events: EventsV1Api, subject: string, reason: string, message: string): Promise<void> {
    const key = `${reason}: ${message}`;
    if (this.reported.get(subject) === key) return;
    this.reported.set(subject, key);
    this.log?.error({ file: subject, reason }, message);
    const now = new Date();
    try {
      // events.k8s.io with an eventTime: the only kind of Event the apiserver lets a cluster-scoped object
      // (the Namespace) have outside the default namespace.
      await events.createNamespacedEvent({
        namespace: MANIFEST_EVENTS_NAMESPACE,
        body: {
          metadata: {
            name: `${MANIFEST_EVENTS_NAMESPACE}.${now.getTime().toString(16)}${randomBytes(3).toString('hex')}`,
            namespace: MANIFEST_EVENTS_NAMESPACE,
          },
          regarding: { apiVersion: 'v1', kind: 'Namespace', name: MANIFEST_EVENTS_NAMESPACE },
          type: 'Warning',
          reason,
          action: 'Apply',
          // The note is limited to 1 KiB; the log has the rest.
          note: message.length > 1024 ? `${message.slice(0, 1021)}...` : message,
          eventTime: microTime(now) as unknown as Date,
          reportingController: MANIFEST_EVENT_SOURCE,
          reportingInstance: hostname(),
        },
      });
    } catch (err) {
      this.log?.warn({ err, reason }, 'could not record the Event for a manifest problem');
    }
  }
}
