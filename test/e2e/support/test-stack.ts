// Run with tsx by the e2e global setup and teardown: Jest loads those outside its module mapping, so they
// start this script instead of importing the stack code themselves.
import { rmSync } from 'node:fs';
import { startStack, stopStack } from '../../../src/devstack/stack.js';
import { testLayout, testLog, testStackOptions } from './stack.js';

const layout = testLayout();
const action = process.argv[2];
if (action === 'start') {
  // Every e2e run starts from an empty stack, so no state from an earlier run can make a test pass.
  await stopStack(layout, testLog);
  rmSync(layout.stateDir, { recursive: true, force: true });
  const started = Date.now();
  await startStack(layout, testLog, testStackOptions);
  process.stderr.write(`helmflow e2e: embedded stack ready in ${Date.now() - started} ms at ${layout.stateDir}\n`);
} else if (action === 'stop') {
  // The state directory (logs included) stays for a post-mortem until the next run.
  await stopStack(layout, testLog);
} else {
  throw new Error('usage: test-stack.ts start|stop');
}
