import { describe, expect, it } from '@jest/globals';
import { pacedHeartbeat } from '../../activities/heartbeat-pace.js';

describe("a waiting step's paced heartbeat", () => {
  it.each([
    {
      name: 'the first look at once, then one per pace',
      calls: [0, 1_000, 4_999, 5_000, 6_000, 10_000],
      handed: [0, 5_000, 10_000],
    },
    { name: 'looks further apart than the pace, each one', calls: [0, 7_000, 14_500], handed: [0, 7_000, 14_500] },
    {
      name: 'the pace counted from the last handed on, not the last look',
      calls: [0, 3_000, 6_000, 9_000, 12_000],
      handed: [0, 6_000, 12_000],
    },
  ])('$name', ({ calls, handed }) => {
    let now = 0;
    const sent: unknown[] = [];
    const heartbeat = pacedHeartbeat({ heartbeat: (details) => sent.push(details) }, 5_000, () => now);
    for (const at of calls) {
      now = at;
      heartbeat({ at });
    }
    expect(sent).toEqual(handed.map((at) => ({ at })));
  });
});
