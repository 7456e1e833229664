import type { CoreV1Event } from '@kubernetes/client-node';
import pino from 'pino';
import type { ActivityDeps } from '../../activities/deps.js';
import { recordEvent, recordRepeatedEvent } from '../../activities/events.js';
import type { ChartEvent, ChartTarget } from '../../activities/types.js';
import { ChartEventReason } from '../../src/api/event-reasons.js';
import { helmChart } from './support/charts.js';
import { apiError } from './support/api-error.js';

const target: ChartTarget = {
  ref: { group: 'helm.k3sm.io', namespace: 'kube-system', name: 'podinfo' },
  uid: '0b8e6a52-5d1c-4f3e-9b7a-2f0c1d9e8a71',
};
const failed: ChartEvent = {
  type: 'Warning',
  reason: ChartEventReason.InstallAttemptFailed,
  message: 'pod helm-install-podinfo-x failed',
};
const markKey = 'helmcharts.helm.k3sm.io/occurrence'; // written out: a changed key would lose every count

/**
 * Events kept as the apiserver keeps them: each write moves the object's resourceVersion, and a replace carrying
 * another one is refused with 409. `raceBeforeReplace` writes as a second worker would, between a read and a replace.
 */
function fakeEvents({ chartUid = target.uid } = {}) {
  const stored = new Map<string, CoreV1Event>();
  const writes: { verb: 'create' | 'replace'; body: CoreV1Event }[] = [];
  let version = 0;
  const seen = { writes, stored, raceBeforeReplace: [] as ((event: CoreV1Event) => void)[] };
  const keep = (body: CoreV1Event): CoreV1Event => {
    version += 1;
    const copy = structuredClone(body);
    copy.metadata.resourceVersion = String(version);
    stored.set(copy.metadata.name ?? '', copy);
    return structuredClone(copy);
  };
  const deps = {
    log: pino({ level: 'silent' }),
    custom: { getNamespacedCustomObject: async () => helmChart({ chart: 'podinfo' }, { uid: chartUid }) },
    core: {
      readNamespacedEvent: async ({ name }: { name: string }) => {
        const found = stored.get(name);
        if (found === undefined) throw apiError(404);
        return structuredClone(found);
      },
      createNamespacedEvent: async ({ body }: { body: CoreV1Event }) => {
        if (stored.has(body.metadata.name ?? '')) throw apiError(409);
        writes.push({ verb: 'create', body });
        return keep(body);
      },
      replaceNamespacedEvent: async ({ name, body }: { name: string; body: CoreV1Event }) => {
        const race = seen.raceBeforeReplace.shift();
        const current = stored.get(name);
        if (race !== undefined && current !== undefined) race(current);
        if (stored.get(name)?.metadata.resourceVersion !== body.metadata.resourceVersion) throw apiError(409);
        writes.push({ verb: 'replace', body });
        return keep(body);
      },
    },
  } as unknown as ActivityDeps;
  /** What another writer does: counts on the stored Event, moving its resourceVersion. */
  const countElsewhere = (count: number, mark: string) => (event: CoreV1Event) => {
    const counted = structuredClone(event);
    counted.count = count;
    counted.metadata.annotations = { [markKey]: mark };
    keep(counted);
  };
  return { deps, seen, countElsewhere };
}

describe('recordRepeatedEvent: one Event per chart and reason, counting each failed pod once', () => {
  it('creates the Event on the first failed pod, on the chart and named from its uid and reason', async () => {
    const { deps, seen } = fakeEvents();
    await recordRepeatedEvent(deps, target, failed, { jobUid: 'job-1', failedPods: 1 });
    expect(seen.writes.map((w) => w.verb)).toEqual(['create']);
    const [event] = [...seen.stored.values()];
    expect(event).toMatchObject({
      metadata: { namespace: 'kube-system', annotations: { [markKey]: 'job-1/1' } },
      involvedObject: { kind: 'HelmChart', name: 'podinfo', uid: target.uid, apiVersion: 'helm.k3sm.io/v1' },
      type: 'Warning',
      reason: 'HelmChartInstallAttemptFailed',
      count: 1,
      reportingComponent: 'helmflow',
    });
    expect(event?.metadata.name).toMatch(/^podinfo\.[0-9a-f]{16}$/u);
  });

  it('counts later pods of the Job on the same Event, keeping when it was first seen', async () => {
    const { deps, seen } = fakeEvents();
    await recordRepeatedEvent(deps, target, failed, { jobUid: 'job-1', failedPods: 1 });
    const first = [...seen.stored.values()][0]?.firstTimestamp;
    await recordRepeatedEvent(deps, target, failed, { jobUid: 'job-1', failedPods: 3 });
    expect(seen.writes.map((w) => w.verb)).toEqual(['create', 'replace']);
    expect(seen.stored.size).toBe(1);
    const [event] = [...seen.stored.values()];
    expect(event).toMatchObject({ count: 3, metadata: { annotations: { [markKey]: 'job-1/3' } } });
    expect(event?.firstTimestamp).toEqual(first);
  });

  it('writes nothing when the same occurrence is reported again (a step retried after its worker died)', async () => {
    const { deps, seen } = fakeEvents();
    await recordRepeatedEvent(deps, target, failed, { jobUid: 'job-1', failedPods: 2 });
    await recordRepeatedEvent(deps, target, failed, { jobUid: 'job-1', failedPods: 2 });
    expect(seen.writes.map((w) => w.verb)).toEqual(['create']);
  });

  it('reads again after a conflict, and counts on what the other writer wrote', async () => {
    const { deps, seen, countElsewhere } = fakeEvents();
    await recordRepeatedEvent(deps, target, failed, { jobUid: 'job-1', failedPods: 1 });
    // Between this writer's read and its replace, another counted the second pod.
    seen.raceBeforeReplace.push(countElsewhere(2, 'job-1/2'));
    await recordRepeatedEvent(deps, target, failed, { jobUid: 'job-1', failedPods: 3 });
    const [event] = [...seen.stored.values()];
    expect(event).toMatchObject({ count: 3, metadata: { annotations: { [markKey]: 'job-1/3' } } });
  });

  it('gives up after five conflicts in a row, so Temporal retries the step', async () => {
    const { deps, seen, countElsewhere } = fakeEvents();
    await recordRepeatedEvent(deps, target, failed, { jobUid: 'job-1', failedPods: 1 });
    for (let i = 0; i < 5; i++) seen.raceBeforeReplace.push(countElsewhere(1, 'job-0/1'));
    await expect(recordRepeatedEvent(deps, target, failed, { jobUid: 'job-1', failedPods: 2 })).rejects.toThrow(
      /kept changing; will retry/u,
    );
  });

  it('writes nothing for a chart that is gone or was recreated under another uid', async () => {
    const { deps, seen } = fakeEvents({ chartUid: 'another-uid' });
    await recordRepeatedEvent(deps, target, failed, { jobUid: 'job-1', failedPods: 1 });
    await recordEvent(deps, target, failed);
    expect(seen.writes).toEqual([]);
  });
});

describe('recordEvent', () => {
  it('keeps the last 4 KiB of a long message, where a failed helm says what went wrong', async () => {
    const { deps, seen } = fakeEvents();
    const message = `${'x'.repeat(10_000)}Error: the last line`;
    await recordEvent(deps, target, { ...failed, message });
    const written = seen.writes[0]?.body.message ?? '';
    expect(written.startsWith('…')).toBe(true);
    expect(written.endsWith('Error: the last line')).toBe(true);
    expect(Buffer.byteLength(written)).toBeLessThanOrEqual(4096 + Buffer.byteLength('…'));
  });

  it('names each Event apart, so two reports of one reason are two Events', async () => {
    const { deps, seen } = fakeEvents();
    await recordEvent(deps, target, failed);
    await recordEvent(deps, target, failed);
    expect(seen.stored.size).toBe(2);
  });
});
