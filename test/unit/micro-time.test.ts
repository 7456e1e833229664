import { microTime } from '../../src/kube/micro-time.js';

describe('microTime: the MicroTime text the apiserver parses (six fractional digits)', () => {
  it.each([
    ['2026-12-07T22:19:02.123Z', '2026-12-07T22:19:02.123000Z'],
    ['2026-01-01T00:00:00.000Z', '2026-01-01T00:00:00.000000Z'],
  ])('%s becomes %s', (iso, wire) => {
    expect(microTime(new Date(iso))).toBe(wire);
  });
});
