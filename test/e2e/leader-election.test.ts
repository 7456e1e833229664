import { CoreV1Api, RbacAuthorizationV1Api } from '@kubernetes/client-node';
import { waitFor } from '../../src/lib/wait.js';
import { LeaderElector, wireTime } from '../../src/kube/leader-election.js';
import { serviceAccountKubeConfig } from '../../src/kube/service-account.js';
import { freshNamespace, kubeConfig } from './support/kube.js';
import { Candidate, leaseTimings, readLease, spawnCandidate } from './support/leases.js';

const LEASE = 'k3sm-helm-controller';
const running: Candidate[] = [];

function candidate(namespace: string, identity: string, over = {}): Candidate {
  const c = new Candidate(namespace, LEASE, identity, over);
  running.push(c);
  return c;
}

afterEach(async () => {
  await Promise.all(running.splice(0).map((c) => c.elector.stop()));
});

/** Waits until every candidate has tried at least `n` more times, so "still not leading" means something. */
async function moreAttempts(candidates: Candidate[], n: number): Promise<void> {
  const from = candidates.map((c) => c.attempts);
  await waitFor(`${n} more lease attempts by each candidate`, () =>
    candidates.every((c, i) => c.attempts >= (from[i] ?? 0) + n),
  );
}

describe('leader election on a coordination.k8s.io Lease', () => {
  it('uses kube-system/k3sm-helm-controller unless told otherwise', () => {
    const elector = new LeaderElector({ kubeConfig: kubeConfig() });
    expect([elector.namespace, elector.name]).toEqual(['kube-system', 'k3sm-helm-controller']);
    expect(elector.identity).toMatch(new RegExp(`_${process.pid}_[0-9a-f]{8}$`));
  });

  it('a lone candidate creates the Lease, leads, and keeps renewing it', async () => {
    const ns = await freshNamespace('lease-one');
    const a = candidate(ns, 'a');
    a.elector.start();
    await waitFor('a to lead', () => a.elector.isLeader);
    expect(a.started).toBe(1);
    const lease = await readLease(ns, LEASE);
    expect(lease.spec).toEqual(
      expect.objectContaining({ holderIdentity: 'a', leaseDurationSeconds: 4, leaseTransitions: 0 }),
    );
    // MicroTime as the apiserver stores it: six fractional digits.
    expect(wireTime(lease.spec?.renewTime)).toMatch(/\.\d{6}Z$/);
    const first = wireTime(lease.spec?.renewTime);
    await waitFor('the Lease to be renewed', async () => {
      const now = await readLease(ns, LEASE);
      return wireTime(now.spec?.renewTime) !== first && now.spec?.holderIdentity === 'a';
    });
  });

  it('a second candidate waits; when the leader shuts down it releases and the second takes over at once', async () => {
    const ns = await freshNamespace('lease-handover');
    const a = candidate(ns, 'a');
    const b = candidate(ns, 'b');
    a.elector.start();
    await waitFor('a to lead', () => a.elector.isLeader);
    b.elector.start();
    await moreAttempts([b], 4);
    expect(b.elector.isLeader).toBe(false);
    expect(b.started).toBe(0);
    expect(b.elector.observedHolder).toBe('a');

    const leadership = a.leadership;
    const stoppedAt = Date.now();
    await a.elector.stop();
    expect(a.stopped).toBe(1);
    expect(leadership?.aborted).toBe(true);
    await waitFor('b to lead', () => b.elector.isLeader, { timeoutMs: 10_000, intervalMs: 50 });
    const handover = Date.now() - stoppedAt;
    // Well inside the lease duration: b did not wait for expiry.
    expect(handover).toBeLessThan(leaseTimings.leaseDurationSeconds * 1000 - 1000);
    const lease = await readLease(ns, LEASE);
    expect(lease.spec).toEqual(expect.objectContaining({ holderIdentity: 'b', leaseTransitions: 1 }));
  });

  it('when the leader is killed without releasing, another takes over only after the lease expires', async () => {
    const ns = await freshNamespace('lease-killed');
    const { child, leading } = spawnCandidate(ns, LEASE, 'doomed');
    try {
      await leading;
      const b = candidate(ns, 'b');
      b.elector.start();
      await moreAttempts([b], 3);
      expect(b.elector.observedHolder).toBe('doomed');
      const killedAt = Date.now();
      child.kill('SIGKILL');
      await waitFor('b to lead', () => b.elector.isLeader, { timeoutMs: 20_000, intervalMs: 50 });
      const takeover = Date.now() - killedAt;
      // The last renewal b saw was at most one renew interval before the kill.
      expect(takeover).toBeGreaterThanOrEqual(
        leaseTimings.leaseDurationSeconds * 1000 - leaseTimings.renewIntervalMs - 100,
      );
      expect(takeover).toBeLessThan(leaseTimings.leaseDurationSeconds * 1000 + 3000);
      const lease = await readLease(ns, LEASE);
      expect(lease.spec).toEqual(expect.objectContaining({ holderIdentity: 'b', leaseTransitions: 1 }));
    } finally {
      child.kill('SIGKILL');
    }
  });

  it('of five candidates started at once, exactly one leads', async () => {
    const ns = await freshNamespace('lease-race');
    const all = ['c1', 'c2', 'c3', 'c4', 'c5'].map((id) => candidate(ns, id));
    for (const c of all) c.elector.start();
    await waitFor('someone to lead', () => all.some((c) => c.elector.isLeader));
    await moreAttempts(all, 5);
    const leaders = all.filter((c) => c.elector.isLeader);
    expect(leaders).toHaveLength(1);
    // Nobody else led even briefly.
    expect(all.map((c) => c.started).reduce((x, y) => x + y)).toBe(1);
    expect((await readLease(ns, LEASE)).spec?.holderIdentity).toBe(leaders[0]?.elector.identity);
  });

  it('a leader whose Lease is taken over steps down', async () => {
    const ns = await freshNamespace('lease-taken');
    const a = candidate(ns, 'a');
    a.elector.start();
    await waitFor('a to lead', () => a.elector.isLeader);
    // Someone with more authority than a (an admin with kubectl, a partitioned peer) writes another holder.
    const { CoordinationV1Api, PatchStrategy, setHeaderOptions } = await import('@kubernetes/client-node');
    await kubeConfig()
      .makeApiClient(CoordinationV1Api)
      .patchNamespacedLease(
        { namespace: ns, name: LEASE, body: { spec: { holderIdentity: 'usurper' } } },
        setHeaderOptions('Content-Type', PatchStrategy.MergePatch),
      );
    await waitFor('a to step down', () => !a.elector.isLeader, { timeoutMs: 10_000, intervalMs: 50 });
    expect(a.stopped).toBe(1);
    expect(a.leadership?.aborted).toBe(true);
  });

  it('a leader that cannot renew steps down after the renew deadline, before the lease could expire', async () => {
    const ns = await freshNamespace('lease-deadline');
    const admin = kubeConfig();
    const core = admin.makeApiClient(CoreV1Api);
    const rbac = admin.makeApiClient(RbacAuthorizationV1Api);
    await core.createNamespacedServiceAccount({ namespace: ns, body: { metadata: { name: 'elector' } } });
    await rbac.createNamespacedRole({
      namespace: ns,
      body: {
        metadata: { name: 'leases' },
        rules: [
          { apiGroups: ['coordination.k8s.io'], resources: ['leases'], verbs: ['get', 'create', 'update', 'patch'] },
        ],
      },
    });
    await rbac.createNamespacedRoleBinding({
      namespace: ns,
      body: {
        metadata: { name: 'leases' },
        roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'leases' },
        subjects: [{ kind: 'ServiceAccount', name: 'elector', namespace: ns }],
      },
    });
    const { kubeConfig: elector } = await serviceAccountKubeConfig(admin, ns, 'elector');
    const a = candidate(ns, 'a', { kubeConfig: elector });
    a.elector.start();
    await waitFor('a to lead', () => a.elector.isLeader);

    const cutAt = Date.now();
    await rbac.deleteNamespacedRoleBinding({ namespace: ns, name: 'leases' });
    await waitFor('a to step down', () => !a.elector.isLeader, { timeoutMs: 10_000, intervalMs: 50 });
    const after = Date.now() - cutAt;
    expect(after).toBeGreaterThanOrEqual(leaseTimings.renewDeadlineMs - leaseTimings.renewIntervalMs - 100);
    expect(after).toBeLessThan(leaseTimings.leaseDurationSeconds * 1000);
    // The Lease still names a: it was never released, so a successor waits for expiry.
    expect((await readLease(ns, LEASE)).spec?.holderIdentity).toBe('a');
  });
});
