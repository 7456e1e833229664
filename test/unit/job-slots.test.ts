import type { V1Job } from '@kubernetes/client-node';
import { MockActivityEnvironment } from '@temporalio/testing';
import pino from 'pino';
import type { ActivityDeps } from '../../activities/deps.js';
import { GRANT_MS, JobSlots, awaitJobSlot } from '../../activities/job-slots.js';
import { slotFree, type SlotView } from '../../src/build/job-slots.js';

describe('slotFree: one more install Job while fewer than the cap run', () => {
  const cases: [string, SlotView, boolean][] = [
    ['none running', { running: [], reserved: [], own: 'a/x', max: 1 }, true],
    ['the cap reached', { running: ['a/y', 'a/z'], reserved: [], own: 'a/x', max: 2 }, false],
    ['one below the cap', { running: ['a/y'], reserved: [], own: 'a/x', max: 2 }, true],
    [
      'a Job just created counts before the watch shows it',
      { running: ['a/y'], reserved: ['a/z'], own: 'a/x', max: 2 },
      false,
    ],
    ['a reserved Job the watch shows counts once', { running: ['a/y'], reserved: ['a/y'], own: 'a/x', max: 2 }, true],
    [
      "the chart's own Job (a retried step) never counts",
      { running: ['a/x', 'a/y'], reserved: [], own: 'a/x', max: 2 },
      true,
    ],
  ];
  it.each(cases)('%s', (_, view, free) => {
    expect(slotFree(view)).toBe(free);
  });

  it('JobSlots hands the last slot to one taker only, and forgets a reservation the watch never showed', () => {
    const slots = new JobSlots(1);
    expect(slots.take([], 'a/x', 0)).toBe(true);
    expect(slots.take([], 'a/y', 1)).toBe(false);
    expect(slots.take([], 'a/y', 10_001)).toBe(true);
  });

  it("keeps a slot awaitJobSlot took for GRANT_MS, until the chart's prepareInstall takes it for its Job", () => {
    const slots = new JobSlots(1);
    expect(slots.take([], 'a/x', 0, GRANT_MS)).toBe(true);
    // Past the 10 s a created Job is held, another chart still finds none: the chart's next step has not come yet.
    expect(slots.take([], 'a/y', 30_000)).toBe(false);
    expect(slots.take([], 'a/x', 30_000)).toBe(true);
    // prepareInstall's take held it 10 s more, for the watch to show the Job; after that, the watch counts it.
    expect(slots.take([], 'a/y', 40_001)).toBe(true);
  });

  it('counts the running Jobs once for every chart asking within 250 ms, and again after', () => {
    const slots = new JobSlots(1);
    let counts = 0;
    const count = () => {
      counts += 1;
      return ['a/y'];
    };
    expect(slots.running(count, 0)).toEqual(['a/y']);
    expect(slots.running(count, 249)).toEqual(['a/y']);
    expect(counts).toBe(1);
    slots.running(count, 250);
    expect(counts).toBe(2);
  });
});

const runningJob = (name: string, ended = false): V1Job => ({
  metadata: { name, namespace: 'kube-system', labels: { 'helmcharts.helm.k3sm.io/action': 'install' } },
  status: ended ? { conditions: [{ type: 'Complete', status: 'True' }] } : { active: 1 },
});

describe('awaitJobSlot', () => {
  it('takes the slot as soon as a running install Job ends; an uninstall Job never counts', async () => {
    const target = { ref: { group: 'helm.k3sm.io' as const, namespace: 'kube-system', name: 'podinfo' }, uid: 'u' };
    let looks = 0;
    const slots = new JobSlots(1);
    const deps = {
      group: 'helm.k3sm.io',
      log: pino({ level: 'silent' }),
      slots,
      jobs: {
        start: async () => undefined,
        // Another chart's install Job runs for two looks, then completes.
        list: () => {
          looks += 1;
          const uninstall: V1Job = { metadata: { name: 'helm-delete-gone', labels: {} }, status: { active: 1 } };
          return [runningJob('helm-install-other', looks > 2), uninstall];
        },
      },
    } as unknown as ActivityDeps;
    const env = new MockActivityEnvironment();
    let heartbeats = 0;
    env.on('heartbeat', () => (heartbeats += 1));
    expect(await env.run(awaitJobSlot, deps, target, 'helm-install-podinfo')).toBe(true);
    expect(looks).toBe(3);
    // A heartbeat at each look that found no slot: a wait no worker runs any more shows within the heartbeat timeout.
    expect(heartbeats).toBe(2);
    // Taken for this chart: another chart finds none, this chart's next step (prepareInstall) finds its own.
    expect(slots.take([], 'kube-system/helm-install-third', Date.now() + 30_000)).toBe(false);
    expect(slots.take([], 'kube-system/helm-install-podinfo', Date.now())).toBe(true);
  });
});
