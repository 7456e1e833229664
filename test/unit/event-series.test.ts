import { nextEventWrite, occurrenceMark, type EventWrite, type Occurrence } from '../../src/build/event-series.js';

const job = (jobUid: string, failedPods: number): Occurrence => ({ jobUid, failedPods });
const event = (count: number, last: Occurrence | string | undefined) => ({
  count,
  mark: typeof last === 'string' || last === undefined ? last : occurrenceMark(last),
});

describe('nextEventWrite: one Event per chart and reason, counting each failed pod once', () => {
  const cases: [string, Parameters<typeof nextEventWrite>[0], Occurrence, EventWrite][] = [
    ['first failed pod: create with count 1', undefined, job('a', 1), { kind: 'create', count: 1 }],
    ['first look already sees two failed pods', undefined, job('a', 2), { kind: 'create', count: 2 }],
    ['the next failed pod of the same Job', event(1, job('a', 1)), job('a', 2), { kind: 'update', count: 2 }],
    ['a report retried after a crash counts nothing', event(2, job('a', 2)), job('a', 2), { kind: 'none' }],
    ['an older report arriving late counts nothing', event(3, job('a', 3)), job('a', 2), { kind: 'none' }],
    [
      'pods missed while nobody looked are all counted',
      event(2, job('a', 2)),
      job('a', 5),
      { kind: 'update', count: 5 },
    ],
    ['a new Job (reinstall) adds its failed pods', event(7, job('a', 7)), job('b', 1), { kind: 'update', count: 8 }],
    ['an Event without a mark counts on', event(4, undefined), job('a', 1), { kind: 'update', count: 5 }],
    ['a mangled mark counts on', event(4, 'nonsense'), job('a', 1), { kind: 'update', count: 5 }],
    ['no failed pod: nothing to say', undefined, job('a', 0), { kind: 'none' }],
  ];
  it.each(cases)('%s', (_name, existing, occurrence, expected) => {
    expect(nextEventWrite(existing, occurrence)).toEqual(expected);
  });

  it('a thousand failed pods of one Job make one Event with count 1000', () => {
    let current: { count: number; mark: string } | undefined;
    let creates = 0;
    for (let failed = 1; failed <= 1000; failed++) {
      const write = nextEventWrite(current, job('a', failed));
      if (write.kind === 'none') continue;
      if (write.kind === 'create') creates += 1;
      current = { count: write.count, mark: occurrenceMark(job('a', failed)) };
    }
    expect(creates).toBe(1);
    expect(current?.count).toBe(1000);
  });
});
