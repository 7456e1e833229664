// The chaos suite kills and restarts the shared e2e stack's processes: it runs last, so no other test file
// meets a stack it has just been through. Every other file keeps Jest's own order.
import TestSequencer from '@jest/test-sequencer';

const Base = TestSequencer.default ?? TestSequencer;

export default class ChaosLast extends Base {
  async sort(tests) {
    const sorted = await super.sort(tests);
    const chaos = (test) => test.path.endsWith('chaos.test.ts');
    return [...sorted.filter((t) => !chaos(t)), ...sorted.filter(chaos)];
  }
}
