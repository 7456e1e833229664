import { stillDelivered, type Delivered } from '../../src/controller/delivered.js';
import { PendingKeys, type Urgency } from '../../src/controller/pending-keys.js';

/** Adds in order, then serves every key (resync allowed): the order the controller's queue works them. */
function served(adds: [string, Urgency][]): string[] {
  const pending = new PendingKeys();
  for (const [key, urgency] of adds) pending.add(key, urgency);
  const order: string[] = [];
  for (let next = pending.take(true); next !== undefined; next = pending.take(true)) {
    order.push(`${next.key}:${next.urgency}`);
  }
  return order;
}

describe("the controller's work queue order (people first)", () => {
  it.each<[string, [string, Urgency][], string[]]>([
    [
      'a resync sweep in arrival order',
      [
        ['a', 'resync'],
        ['b', 'resync'],
      ],
      ['a:resync', 'b:resync'],
    ],
    [
      'a change queued behind a whole sweep goes first',
      [
        ['a', 'resync'],
        ['b', 'resync'],
        ['c', 'resync'],
        ['new', 'change'],
      ],
      ['new:change', 'a:resync', 'b:resync', 'c:resync'],
    ],
    [
      'changes among themselves in arrival order',
      [
        ['x', 'change'],
        ['y', 'change'],
      ],
      ['x:change', 'y:change'],
    ],
    [
      'a change to a chart waiting for its resync overtakes, once',
      [
        ['a', 'resync'],
        ['b', 'resync'],
        ['b', 'change'],
      ],
      ['b:change', 'a:resync'],
    ],
    [
      'a resync never demotes a queued change',
      [
        ['a', 'change'],
        ['a', 'resync'],
      ],
      ['a:change'],
    ],
    [
      'a key queued twice is served once',
      [
        ['a', 'resync'],
        ['a', 'resync'],
      ],
      ['a:resync'],
    ],
  ])('%s', (_, adds, order) => {
    expect(served(adds)).toEqual(order);
  });

  it('holds resync work back while its pace forbids it, but never a change', () => {
    const pending = new PendingKeys();
    pending.add('sweep', 'resync');
    expect(pending.take(false)).toBeUndefined();
    pending.add('edited', 'change');
    expect(pending.take(false)).toEqual({ key: 'edited', urgency: 'change' });
    expect(pending.take(true)).toEqual({ key: 'sweep', urgency: 'resync' });
  });
});

describe('what the controller remembers of a workflow (idle costs nothing)', () => {
  const at = 1_000_000;
  const sent: Delivered = { fingerprint: 'f', runId: 'run-1', at };
  const lag = 10_000;
  it.each<[string, Delivered | undefined, string | undefined, number, boolean]>([
    ['nothing remembered (a restarted controller): signal', undefined, 'run-1', at + 60_000, false],
    ['the run that took the signal still runs: nothing to send', sent, 'run-1', at + 60_000, true],
    [
      'the workflow no longer runs (completed, terminated, Temporal lost it): signal',
      sent,
      undefined,
      at + 60_000,
      false,
    ],
    ['another run (continued as new, or reset): signal', sent, 'run-2', at + 60_000, false],
    [
      'delivered just before the listing (visibility lags): trusted until the next sweep',
      sent,
      undefined,
      at + 5_000,
      true,
    ],
  ])('%s', (_, delivered, listedRunId, listedAt, holds) => {
    expect(stillDelivered(delivered, listedRunId, listedAt, lag)).toBe(holds);
  });
});
