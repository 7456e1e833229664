import { stopStack } from '../../src/devstack/stack.js';
import { testLayout, testLog } from './support/stack.js';

/** Stops the test stack; its state directory (logs included) stays for a post-mortem until the next run. */
export default async function globalTeardown(): Promise<void> {
  await stopStack(testLayout(), testLog);
}
