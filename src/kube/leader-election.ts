import type { KubeConfig, V1Lease } from '@kubernetes/client-node';
import { randomBytes } from 'node:crypto';
import { EventEmitter } from 'node:events';
import { hostname } from 'node:os';
import { setTimeout as delay } from 'node:timers/promises';
import type { Logger } from 'pino';
import { isConflict, isNotFound } from './client.js';
import { kubeLeaseClient, type LeaseClient } from './lease-client.js';
import { microTime } from './micro-time.js';

/**
 * Leader election on a coordination.k8s.io Lease, as client-go's leaderelection does it: only one controller
 * watches and signals at a time (test/e2e/seed-coverage.md, "What Runs"). Every write carries the resourceVersion that was read,
 * so two candidates racing for a free Lease cannot both win. Expiry is judged by this process's own clock from
 * the moment it last saw the record change, never by comparing the holder's timestamps with ours, so clock skew
 * between servers cannot hand the Lease over early. Every Lease call is bounded by the renew deadline (the HTTP
 * call is aborted), so a leader on a half-open connection stops leading when its deadline passes, not when its
 * call returns, and campaigns again as a candidate.
 */

/**
 * helmflow's Lease timings, as Flux's controllers default them rather than client-go's 15 s / 10 s / 2 s: in
 * `helmflow run` the controller shares its process with the worker, whose activities can keep its event loop busy
 * for seconds at a time while hundreds of charts install, and a leader that steps down stops signalling and then
 * signals every chart again when it leads again. The price is a longer wait (35 s) for a standby to take over
 * from a leader that died without releasing the Lease; one that stops cleanly releases it at once.
 */
export const DEFAULT_LEASE_TIMINGS = { durationSeconds: 35, renewDeadlineSeconds: 30, retryPeriodSeconds: 5 } as const;

export const DEFAULT_LEASE_NAMESPACE = 'kube-system';
export const DEFAULT_LEASE_NAME = 'k3sm-helm-controller';

/** Time as the elector sees it; injected by tests. */
export interface Clock {
  now(): number;
  /** Resolves after `ms`, or as soon as `signal` aborts (never rejects). */
  sleep(ms: number, signal: AbortSignal): Promise<void>;
}

export const systemClock: Clock = {
  now: () => Date.now(),
  sleep: (ms, signal) => delay(ms, undefined, { signal }).catch(() => undefined),
};

export interface LeaderElectionOptions {
  /** Where the Lease lives; not needed when `leaseClient` is given. */
  kubeConfig?: KubeConfig;
  /** The Lease calls; default: through the Kubernetes API of `kubeConfig`. */
  leaseClient?: LeaseClient;
  clock?: Clock;
  namespace?: string;
  name?: string;
  /** Who holds the Lease; unique per process. Default: hostname_pid_random. */
  identity?: string;
  /** How long others wait, from the last renewal they saw, before taking over. Default 15. */
  leaseDurationSeconds?: number;
  /** How often the leader renews, counted from the start of the last renewal. Default 2000, as client-go. */
  renewIntervalMs?: number;
  /** The leader steps down when no renewal succeeded for this long; below the lease duration. Default 10000. */
  renewDeadlineMs?: number;
  /** How often a candidate tries, and a failing leader retries. Default 2000. */
  retryPeriodMs?: number;
  logger?: Logger;
  /** Leadership began; `signal` aborts when it ends, so work started here can stop with it. */
  onStartedLeading?: (signal: AbortSignal) => void;
  onStoppedLeading?: () => void;
  /** The observed holder changed (undefined: nobody holds it). */
  onNewLeader?: (identity: string | undefined) => void;
}

export interface LeaseAttempt {
  /** Whether this candidate holds the Lease after the attempt. */
  leading: boolean;
  /** The holder seen (after our write, if any). */
  holder: string | undefined;
  /** When leading: the Lease's spec.leaseTransitions after the attempt. */
  term?: number;
  error?: unknown;
}

export interface LeaderElectorEvents {
  startedLeading: [signal: AbortSignal];
  stoppedLeading: [];
  newLeader: [identity: string | undefined];
  attempt: [attempt: LeaseAttempt];
}

export function defaultIdentity(): string {
  return `${hostname()}_${process.pid}_${randomBytes(4).toString('hex')}`;
}

interface Observed {
  holder: string | undefined;
  renewTime: string | undefined;
  leaseDurationSeconds: number;
  /** Our clock when we saw this record first. */
  seenAt: number;
}

export class LeaderElector extends EventEmitter<LeaderElectorEvents> {
  readonly identity: string;
  readonly namespace: string;
  readonly name: string;
  private readonly client: LeaseClient;
  private readonly clock: Clock;
  private leadingTerm: number | undefined;
  private readonly leaseDurationSeconds: number;
  private readonly renewIntervalMs: number;
  private readonly renewDeadlineMs: number;
  private readonly retryPeriodMs: number;
  private readonly log: Logger | undefined;
  private observed: Observed | undefined;
  private leading = false;
  private leadership: AbortController | undefined;
  private lastRenewal = 0;
  private stopper: AbortController | undefined;
  private loop: Promise<void> | undefined;

  constructor(private readonly options: LeaderElectionOptions) {
    super();
    this.identity = options.identity ?? defaultIdentity();
    this.namespace = options.namespace ?? DEFAULT_LEASE_NAMESPACE;
    this.name = options.name ?? DEFAULT_LEASE_NAME;
    this.leaseDurationSeconds = options.leaseDurationSeconds ?? 15;
    this.renewIntervalMs = options.renewIntervalMs ?? 2_000;
    this.renewDeadlineMs = options.renewDeadlineMs ?? 10_000;
    this.retryPeriodMs = options.retryPeriodMs ?? 2_000;
    this.log = options.logger?.child({ lease: `${this.namespace}/${this.name}`, identity: this.identity });
    // The leader must give up before anyone else may consider the Lease expired.
    if (this.renewDeadlineMs >= this.leaseDurationSeconds * 1000) {
      throw new Error('renewDeadlineMs must be shorter than leaseDurationSeconds');
    }
    if (this.renewIntervalMs >= this.renewDeadlineMs) {
      throw new Error('renewIntervalMs must be shorter than renewDeadlineMs');
    }
    this.clock = options.clock ?? systemClock;
    if (options.leaseClient !== undefined) this.client = options.leaseClient;
    else if (options.kubeConfig !== undefined) {
      this.client = kubeLeaseClient(options.kubeConfig, this.namespace, this.name);
    } else throw new Error('a LeaderElector needs a kubeConfig or a leaseClient');
  }

  get isLeader(): boolean {
    return this.leading;
  }

  /**
   * The fencing token of this leadership: the Lease's spec.leaseTransitions at which this process started
   * leading (undefined while it does not lead). It only grows from one leader to the next, so whoever receives
   * work stamped with a term can ignore work from an older one: a stale leader that kept acting after another
   * replica took the Lease carries a smaller term. Set before onStartedLeading runs.
   */
  get term(): number | undefined {
    return this.leadingTerm;
  }

  /** The holder this candidate saw last. */
  get observedHolder(): string | undefined {
    return this.observed?.holder;
  }

  /** Starts campaigning in the background; idempotent. */
  start(): void {
    if (this.loop !== undefined) return;
    this.stopper = new AbortController();
    this.loop = this.run(this.stopper.signal);
  }

  /**
   * Stops campaigning. A leader releases the Lease (clears the holder, a 1s duration) so a successor takes
   * over at its next retry instead of after the full lease duration.
   */
  async stop(): Promise<void> {
    if (this.loop === undefined) return;
    this.stopper?.abort();
    await this.loop;
    this.loop = undefined;
    // Released even when not (yet) leading: an attempt cut short by stop() may have won the Lease already.
    await this.release();
    this.stepDown('shutting down');
  }

  private async run(stop: AbortSignal): Promise<void> {
    // A function, not the property, so the compiler does not assume `aborted` cannot change across an await.
    const stopped = (): boolean => stop.aborted;
    while (!stopped()) {
      const startedAt = this.clock.now();
      // A leader may wait for its call only until its renew deadline; a candidate for one renew deadline.
      const budget = this.leading ? this.lastRenewal + this.renewDeadlineMs - startedAt : this.renewDeadlineMs;
      const attempt =
        budget > 0
          ? await this.bounded(budget, stop, (signal) => this.tryAcquireOrRenew(signal))
          : this.failed(new Error('the renew deadline passed'));
      if (stopped()) break;
      this.emit('attempt', attempt);
      if (attempt.leading) {
        this.lastRenewal = startedAt;
        if (!this.leading) this.startLeading(attempt.term);
      } else if (this.leading) {
        // Someone else holds it now, or renewals have failed for too long: stop acting before they start.
        const lost = attempt.holder !== undefined && attempt.holder !== this.identity && attempt.error === undefined;
        if (lost) this.stepDown(`lease taken by ${attempt.holder}`);
        else if (this.clock.now() - this.lastRenewal >= this.renewDeadlineMs) {
          this.stepDown(`no renewal succeeded within ${this.renewDeadlineMs} ms`);
        }
      }
      // A renewal's cadence counts from when its call started: a slow call (a loaded apiserver) must not push the
      // next one towards the deadline, which would leave it too little time to answer (client-go renews the same way).
      const wait =
        this.leading && attempt.leading ? startedAt + this.renewIntervalMs - this.clock.now() : this.retryPeriodMs;
      // A failing leader wakes up by its deadline at the latest, to step down then.
      const untilDeadline = this.leading ? this.lastRenewal + this.renewDeadlineMs - this.clock.now() : wait;
      await this.clock.sleep(Math.max(0, Math.min(wait, untilDeadline)), stop);
    }
  }

  /**
   * Runs `call` with a signal that aborts after `ms` by this elector's clock, or when `stop` aborts. The call
   * must end when its signal aborts (LeaseClient's contract), so this returns by the deadline.
   */
  private async bounded<T>(ms: number, stop: AbortSignal, call: (signal: AbortSignal) => Promise<T>): Promise<T> {
    const cut = new AbortController();
    const finished = new AbortController();
    const onStop = () => {
      cut.abort(stop.reason);
    };
    stop.addEventListener('abort', onStop, { once: true });
    void this.clock.sleep(ms, finished.signal).then(() => {
      if (!finished.signal.aborted) cut.abort(new Error(`the Lease call did not answer within ${ms} ms`));
    });
    try {
      return await call(cut.signal);
    } finally {
      stop.removeEventListener('abort', onStop);
      finished.abort();
    }
  }

  private startLeading(term: number | undefined): void {
    this.leading = true;
    this.leadingTerm = term;
    this.leadership = new AbortController();
    this.log?.info('started leading');
    const signal = this.leadership.signal;
    this.options.onStartedLeading?.(signal);
    this.emit('startedLeading', signal);
  }

  private stepDown(why: string): void {
    if (!this.leading) return;
    this.leading = false;
    this.leadingTerm = undefined;
    this.leadership?.abort();
    this.leadership = undefined;
    this.log?.warn({ why }, 'stopped leading');
    this.options.onStoppedLeading?.();
    this.emit('stoppedLeading');
  }

  private observe(lease: V1Lease): void {
    const holder = nonEmpty(lease.spec?.holderIdentity);
    const renewTime = wireTime(lease.spec?.renewTime);
    const previous = this.observed;
    if (previous === undefined || previous.holder !== holder || previous.renewTime !== renewTime) {
      this.observed = {
        holder,
        renewTime,
        leaseDurationSeconds: lease.spec?.leaseDurationSeconds ?? this.leaseDurationSeconds,
        seenAt: this.clock.now(),
      };
    }
    if (previous?.holder !== holder) {
      this.log?.info({ holder }, 'lease holder observed');
      this.options.onNewLeader?.(holder);
      this.emit('newLeader', holder);
    }
  }

  private async tryAcquireOrRenew(signal: AbortSignal): Promise<LeaseAttempt> {
    const now = new Date(this.clock.now());
    let lease: V1Lease;
    try {
      lease = await this.client.read(signal);
    } catch (err) {
      if (!isNotFound(err)) return this.failed(err);
      return this.create(now, signal);
    }
    this.observe(lease);
    const observed = this.observed;
    const holder = observed?.holder;
    const held = holder !== undefined && holder !== this.identity;
    if (held && observed !== undefined && this.clock.now() < observed.seenAt + observed.leaseDurationSeconds * 1000) {
      return { leading: false, holder };
    }
    const acquiring = holder !== this.identity;
    const patch = {
      metadata: { resourceVersion: lease.metadata?.resourceVersion },
      spec: {
        holderIdentity: this.identity,
        leaseDurationSeconds: this.leaseDurationSeconds,
        renewTime: microTime(now),
        ...(acquiring
          ? { acquireTime: microTime(now), leaseTransitions: (lease.spec?.leaseTransitions ?? 0) + 1 }
          : {}),
      },
    };
    try {
      const updated = await this.client.patch(patch, signal);
      this.observe(updated);
      if (acquiring) this.log?.info({ previous: holder }, 'acquired lease');
      return { leading: true, holder: this.identity, term: updated.spec?.leaseTransitions ?? 0 };
    } catch (err) {
      // A conflict means another candidate wrote first: it is theirs until we see it expire.
      if (isConflict(err)) return { leading: false, holder };
      return this.failed(err);
    }
  }

  private async create(now: Date, signal: AbortSignal): Promise<LeaseAttempt> {
    try {
      const created = await this.client.create(
        {
          metadata: { name: this.name, namespace: this.namespace },
          spec: {
            holderIdentity: this.identity,
            leaseDurationSeconds: this.leaseDurationSeconds,
            // The typed model wants a Date; the apiserver wants six fractional digits, which the string carries.
            acquireTime: microTime(now) as unknown as Date,
            renewTime: microTime(now) as unknown as Date,
            leaseTransitions: 0,
          },
        },
        signal,
      );
      this.observe(created);
      this.log?.info('created and acquired lease');
      return { leading: true, holder: this.identity, term: created.spec?.leaseTransitions ?? 0 };
    } catch (err) {
      if (isConflict(err)) return { leading: false, holder: undefined };
      return this.failed(err);
    }
  }

  private failed(error: unknown): LeaseAttempt {
    this.log?.warn({ err: error }, 'lease attempt failed');
    return { leading: false, holder: this.observed?.holder, error };
  }

  /** Clears the holder only if it is still ours; a write that conflicts means it already is not. */
  private async release(): Promise<void> {
    try {
      await this.bounded(this.renewDeadlineMs, new AbortController().signal, async (signal) => {
        const lease = await this.client.read(signal);
        if (lease.spec?.holderIdentity !== this.identity) return;
        await this.client.patch(
          {
            metadata: { resourceVersion: lease.metadata?.resourceVersion },
            spec: { holderIdentity: null, leaseDurationSeconds: 1, renewTime: microTime(new Date(this.clock.now())) },
          },
          signal,
        );
        this.log?.info('released lease');
      });
    } catch (err) {
      // Not fatal: the Lease then expires after its duration, as after a crash.
      this.log?.warn({ err }, 'could not release lease');
    }
  }
}

function nonEmpty(value: string | undefined): string | undefined {
  return value === undefined || value === '' ? undefined : value;
}

/**
 * client-node types MicroTime fields as Dates but hands them over as the apiserver's strings (the model has
 * no deserializer for them); either way this is the text to compare.
 */
export function wireTime(value: unknown): string | undefined {
  if (value instanceof Date) return microTime(value);
  return typeof value === 'string' ? value : undefined;
}
