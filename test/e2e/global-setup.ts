import { rmSync } from 'node:fs';
import { startStack, stopStack } from '../../src/devstack/stack.js';
import { testLayout, testLog, testStackOptions } from './support/stack.js';

/** Every e2e run starts from an empty stack, so no state from an earlier run can make a test pass. */
export default async function globalSetup(): Promise<void> {
  const layout = testLayout();
  await stopStack(layout, testLog);
  rmSync(layout.stateDir, { recursive: true, force: true });
  const started = Date.now();
  await startStack(layout, testLog, testStackOptions);
  process.stderr.write(`\nhelmflow e2e: embedded stack ready in ${Date.now() - started} ms at ${layout.stateDir}\n`);
}
