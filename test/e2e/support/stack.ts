import { tmpdir } from 'node:os';
import path from 'node:path';
import { pino } from 'pino';
import { shiftedPorts, StackLayout } from '../../../src/devstack/layout.js';
import type { StackOptions } from '../../../src/devstack/components.js';

/**
 * The end-to-end tests' own stack: its own directory and ports, so a user's stack is never touched.
 * HELMFLOW_TEST_STACK_DIR and HELMFLOW_TEST_PORT_OFFSET (default 2000; use steps of 100) let two runs share a machine.
 */
export function testLayout(): StackLayout {
  const dir = process.env.HELMFLOW_TEST_STACK_DIR ?? path.join(tmpdir(), 'helmflow-e2e-stack');
  return new StackLayout(dir, shiftedPorts(Number(process.env.HELMFLOW_TEST_PORT_OFFSET ?? 2000)));
}

/** A short re-check so the missing-binary test sees the pod start without waiting a whole minute. */
export const testStackOptions: StackOptions = { nativeNodeRecheckSeconds: 2 };

export const testLog = pino({ level: process.env.HELMFLOW_TEST_LOG_LEVEL ?? 'warn' }, pino.destination(2));
