// One helmflow role in a process of its own, so a test can SIGKILL it: a killed controller leaves its Lease
// held, a killed worker leaves its activities unreported, as after a crash. Run with tsx:
//   HELMFLOW_CHILD_SETTINGS='<Settings as JSON>' node --import tsx test/e2e/support/helmflow-child.ts controller|worker
// Prints "leading" / "not leading" (controller) on stdout as its leadership changes.
import { pino } from 'pino';
import { runController } from '../../../src/app/controller-process.js';
import type { Settings } from '../../../src/app/settings.js';
import { runWorker } from '../../../src/app/worker-process.js';

const role = process.argv[2];
const settings = JSON.parse(process.env.HELMFLOW_CHILD_SETTINGS ?? 'null') as Settings | null;
if (settings === null || (role !== 'controller' && role !== 'worker')) {
  throw new Error('usage: HELMFLOW_CHILD_SETTINGS=<json> helmflow-child.ts controller|worker');
}
const log = pino({ level: process.env.HELMFLOW_TEST_LOG_LEVEL ?? 'warn' }, pino.destination(2)).child({
  role,
  child: process.pid,
});
const stop = new AbortController();
process.once('SIGTERM', () => {
  stop.abort();
});
if (role === 'controller') {
  await runController(settings, log, stop.signal, {
    onLeading: (leading) => process.stdout.write(leading ? 'leading\n' : 'not leading\n'),
  });
} else {
  await runWorker(settings, log, stop.signal);
}
