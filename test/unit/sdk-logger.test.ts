import { Writable } from 'node:stream';
import { pino } from 'pino';
import { sdkLogger } from '../../src/observability/sdk-logger.js';

function capture(): { lines: () => Record<string, unknown>[]; stream: Writable } {
  const chunks: string[] = [];
  const stream = new Writable({
    write(chunk: Buffer, _encoding, done) {
      chunks.push(chunk.toString());
      done();
    },
  });
  const lines = () =>
    chunks
      .join('')
      .split('\n')
      .filter((l) => l !== '')
      .map((l) => JSON.parse(l) as Record<string, unknown>);
  return { lines, stream };
}

describe("the Temporal SDK's log lines", () => {
  it.each([
    ['TRACE', 10],
    ['DEBUG', 20],
    ['INFO', 30],
    ['WARN', 40],
    ['ERROR', 50],
  ] as const)('%s is one JSON line at pino level %i, with its metadata', (level, pinoLevel) => {
    const { lines, stream } = capture();
    const logger = sdkLogger(pino({ level: 'trace' }, stream));
    logger.log(level, 'Worker state changed', { sdkComponent: 'worker', taskQueue: 'q' });
    expect(lines()).toEqual([
      expect.objectContaining({
        level: pinoLevel,
        msg: 'Worker state changed',
        component: 'temporal-sdk',
        sdkComponent: 'worker',
        taskQueue: 'q',
      }),
    ]);
  });

  it("keeps helmflow's level filter: debug lines are dropped at info", () => {
    const { lines, stream } = capture();
    const logger = sdkLogger(pino({ level: 'info' }, stream));
    logger.debug('polling');
    logger.warn('slow poll');
    expect(lines().map((l) => l.msg)).toEqual(['slow poll']);
  });
});
