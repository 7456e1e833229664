import type { V1Job } from '@kubernetes/client-node';
import { MockActivityEnvironment } from '@temporalio/testing';
import pino from 'pino';
import type { ActivityDeps } from '../../activities/deps.js';
import { JobSlots, awaitJobSlot } from '../../activities/job-slots.js';
import { slotFree, type SlotView } from '../../src/build/job-slots.js';
import { helmChart } from './support/charts.js';

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
});

const runningJob = (name: string, ended = false): V1Job => ({
  metadata: { name, namespace: 'kube-system', labels: { 'helmcharts.helm.k3sm.io/action': 'install' } },
  status: ended ? { conditions: [{ type: 'Complete', status: 'True' }] } : { active: 1 },
});

describe('awaitJobSlot', () => {
  it('waits while the cap is reached, says so once on the chart, and goes ahead when a Job ends', async () => {
    const chart = helmChart({ repo: 'https://charts.example.com', chart: 'podinfo' });
    const target = { ref: { group: 'helm.k3sm.io' as const, namespace: 'kube-system', name: 'podinfo' }, uid: 'u' };
    const statuses: unknown[] = [];
    let looks = 0;
    const deps = {
      group: 'helm.k3sm.io',
      log: pino({ level: 'silent' }),
      slots: new JobSlots(1),
      jobs: {
        start: async () => undefined,
        // A crds Job of another chart runs for two looks, then completes; an uninstall Job never counts.
        list: () => {
          looks += 1;
          const other: V1Job = { metadata: { name: 'helm-delete-gone', labels: {} }, status: { active: 1 } };
          return [runningJob('helm-install-other', looks > 2), other];
        },
      },
      custom: {
        getNamespacedCustomObject: async () => chart,
        patchNamespacedCustomObjectStatus: async ({ body }: { body: { status: unknown } }) => {
          statuses.push(body.status);
        },
      },
    } as unknown as ActivityDeps;
    await new MockActivityEnvironment().run(awaitJobSlot, deps, target, chart, 'helm-install-podinfo');
    expect(looks).toBe(3);
    expect(statuses).toEqual([
      {
        conditions: [expect.objectContaining({ type: 'JobCreated', status: 'False', reason: 'WaitingForJobSlot' })],
      },
    ]);
  });
});
