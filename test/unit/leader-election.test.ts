import type { V1Lease } from '@kubernetes/client-node';
import { LeaderElector, type Clock } from '../../src/kube/leader-election.js';
import type { LeaseClient } from '../../src/kube/lease-client.js';

/** Lets every promise that can settle now settle (no time passes on the fake clock). */
async function settle(): Promise<void> {
  for (let i = 0; i < 5; i += 1) {
    await new Promise<void>((resolve) => {
      setImmediate(resolve);
    });
  }
}

/** A clock that moves only when told to, waking sleepers in order. */
class FakeClock implements Clock {
  private time = 0;
  private sleepers: { at: number; wake: () => void }[] = [];

  now(): number {
    return this.time;
  }

  sleep(ms: number, signal: AbortSignal): Promise<void> {
    return new Promise((resolve) => {
      if (signal.aborted) {
        resolve();
        return;
      }
      const onAbort = () => {
        this.sleepers = this.sleepers.filter((s) => s !== sleeper);
        resolve();
      };
      const sleeper = {
        at: this.time + ms,
        wake: () => {
          signal.removeEventListener('abort', onAbort);
          resolve();
        },
      };
      this.sleepers.push(sleeper);
      signal.addEventListener('abort', onAbort, { once: true });
    });
  }

  /** Moves to `to`, waking each sleeper at its own time and letting what it starts run before the next. */
  async advanceTo(to: number): Promise<void> {
    await settle();
    for (;;) {
      const next = this.sleepers.filter((s) => s.at <= to).sort((a, b) => a.at - b.at)[0];
      if (next === undefined) break;
      this.sleepers = this.sleepers.filter((s) => s !== next);
      this.time = Math.max(this.time, next.at);
      next.wake();
      await settle();
    }
    this.time = to;
    await settle();
  }
}

/**
 * One Lease in memory, with the apiserver's resourceVersion check; `hang` makes every call wait for its abort,
 * `slow` makes every call answer after that many ms of the clock (a loaded apiserver).
 */
class FakeLeases implements LeaseClient {
  lease: V1Lease | undefined;
  hang = false;
  slow: { clock: Clock; ms: number } | undefined;
  calls = 0;
  hungCallsAborted = 0;
  private version = 0;

  read(signal: AbortSignal): Promise<V1Lease> {
    return this.answer(signal, () => {
      if (this.lease === undefined) throw Object.assign(new Error('not found'), { code: 404 });
      return structuredClone(this.lease);
    });
  }

  create(body: V1Lease, signal: AbortSignal): Promise<V1Lease> {
    return this.answer(signal, () => {
      if (this.lease !== undefined) throw Object.assign(new Error('exists'), { code: 409 });
      return this.store(body);
    });
  }

  patch(body: object, signal: AbortSignal): Promise<V1Lease> {
    return this.answer(signal, () => {
      const patch = body as { metadata?: { resourceVersion?: string }; spec?: Record<string, unknown> };
      if (patch.metadata?.resourceVersion !== this.lease?.metadata?.resourceVersion) {
        throw Object.assign(new Error('conflict'), { code: 409 });
      }
      const spec = Object.assign({}, this.lease?.spec, patch.spec) as Record<string, unknown>;
      for (const [key, value] of Object.entries(spec)) if (value === null) spec[key] = undefined;
      return this.store({ metadata: {}, spec });
    });
  }

  /** Another replica writes the Lease (a takeover, or its renewal). */
  writtenBy(holder: string, leaseTransitions: number): void {
    this.store({ metadata: {}, spec: { holderIdentity: holder, leaseDurationSeconds: 15, leaseTransitions } });
  }

  private store(lease: V1Lease): V1Lease {
    this.version += 1;
    this.lease = structuredClone(lease);
    (this.lease.metadata ??= {}).resourceVersion = String(this.version);
    return structuredClone(this.lease);
  }

  private answer<T>(signal: AbortSignal, value: () => T): Promise<T> {
    this.calls += 1;
    const { slow } = this;
    if (slow !== undefined && !this.hang) {
      return slow.clock.sleep(slow.ms, signal).then(() => {
        if (signal.aborted) throw new Error('aborted');
        return value();
      });
    }
    if (!this.hang) {
      try {
        return Promise.resolve(value());
      } catch (err) {
        return Promise.reject(err instanceof Error ? err : new Error(String(err)));
      }
    }
    // A half-open connection: no answer, ever; only the caller's abort ends the call.
    return new Promise<T>((_, reject) => {
      signal.addEventListener(
        'abort',
        () => {
          this.hungCallsAborted += 1;
          reject(new Error('aborted'));
        },
        { once: true },
      );
    });
  }
}

// The defaults: 15 s lease, renew every 2 s, step down 10 s after the last renewal, retry every 2 s.
function elector(leases: FakeLeases, clock: FakeClock, identity = 'a') {
  const record = { started: 0, stopped: 0, leadership: undefined as AbortSignal | undefined };
  const e = new LeaderElector({ leaseClient: leases, clock, identity });
  e.on('startedLeading', (signal) => {
    record.started += 1;
    record.leadership = signal;
  });
  e.on('stoppedLeading', () => {
    record.stopped += 1;
  });
  return { e, record };
}

describe('LeaderElector with hung Lease calls', () => {
  it('a leader whose calls hang stops leading at its renew deadline: the call is aborted, not waited for', async () => {
    const clock = new FakeClock();
    const leases = new FakeLeases();
    const { e, record } = elector(leases, clock);
    e.start();
    await clock.advanceTo(0);
    expect(e.isLeader).toBe(true);
    expect(e.term).toBe(0);
    await clock.advanceTo(5_000);
    expect(leases.lease?.spec?.holderIdentity).toBe('a');

    // The last renewal started at 4 s (one every 2 s); from 6 s on, every call hangs.
    leases.hang = true;
    await clock.advanceTo(13_999);
    expect(e.isLeader).toBe(true);
    expect(leases.hungCallsAborted).toBe(0);
    await clock.advanceTo(14_000);
    expect(e.isLeader).toBe(false);
    expect(leases.hungCallsAborted).toBe(1);
    expect(record.leadership?.aborted).toBe(true);
    expect(record.stopped).toBe(1);
    expect(e.term).toBeUndefined();
    void e.stop();
    await clock.advanceTo(30_000);
  });

  it('a leader whose calls are slow but answer keeps leading: each renewal is timed from the start of the last', async () => {
    const clock = new FakeClock();
    const leases = new FakeLeases();
    const { e, record } = elector(leases, clock);
    e.start();
    await clock.advanceTo(0);
    expect(e.isLeader).toBe(true);
    // Every call now takes 2 s (read and patch: 4 s a renewal), within the 10 s deadline but longer than a renew
    // interval. Timed from the end of each call plus the old 5 s interval, the next renewal would start 9 s after
    // the last one started, with 1 s left: a step-down, as the 100-chart bench saw under load.
    leases.slow = { clock, ms: 2_000 };
    await clock.advanceTo(120_000);
    expect(e.isLeader).toBe(true);
    expect(record.stopped).toBe(0);
    expect(leases.hungCallsAborted).toBe(0);
    void e.stop();
    leases.slow = undefined;
    await clock.advanceTo(130_000);
  });

  it('a candidate is bounded too, and after stepping down campaigns again: follows the new holder, leads once it expires', async () => {
    const clock = new FakeClock();
    const leases = new FakeLeases();
    const { e, record } = elector(leases, clock);
    e.start();
    await clock.advanceTo(0);
    leases.hang = true;
    await clock.advanceTo(10_000);
    expect(e.isLeader).toBe(false);
    // Still hung: each candidate attempt is cut at the renew deadline and another one starts.
    const callsBefore = leases.calls;
    await clock.advanceTo(40_000);
    expect(leases.hungCallsAborted).toBeGreaterThanOrEqual(3);
    expect(leases.calls).toBeGreaterThan(callsBefore);

    // The connection heals; meanwhile b took the Lease (transition 1).
    leases.writtenBy('b', 1);
    leases.hang = false;
    await clock.advanceTo(52_000);
    expect(e.observedHolder).toBe('b');
    expect(e.isLeader).toBe(false);
    // b never renews: 15 s after a saw b's record, a takes it over, one transition later.
    await clock.advanceTo(70_000);
    expect(e.isLeader).toBe(true);
    expect(leases.lease?.spec?.leaseTransitions).toBe(2);
    expect(e.term).toBe(2);
    expect(record.started).toBe(2);
    void e.stop();
    await clock.advanceTo(80_000);
  });

  it('term is the leaseTransitions at which this process acquired, unchanged by renewals', async () => {
    const clock = new FakeClock();
    const leases = new FakeLeases();
    leases.writtenBy('old-leader', 4);
    const { e } = elector(leases, clock);
    e.start();
    await clock.advanceTo(0);
    expect(e.isLeader).toBe(false);
    expect(e.term).toBeUndefined();
    await clock.advanceTo(16_000);
    expect(e.isLeader).toBe(true);
    expect(e.term).toBe(5);
    await clock.advanceTo(60_000);
    expect(e.isLeader).toBe(true);
    expect(e.term).toBe(5);
    void e.stop();
    await clock.advanceTo(70_000);
  });
});
