import { readFileSync } from 'node:fs';
import { Connection, WorkflowClient } from '@temporalio/client';
import { readPins } from '../../src/config/pins.js';
import { processesUnder } from '../../src/devstack/process.js';
import { stackStatus, startStack, stopStack } from '../../src/devstack/stack.js';
import { kubectl } from './support/kube.js';
import { testLayout, testLog, testStackOptions } from './support/stack.js';

async function describeWorkflow(workflowId: string) {
  const connection = await Connection.connect({ address: testLayout().temporalAddress });
  try {
    const client = new WorkflowClient({ connection });
    return await client.getHandle(workflowId).describe();
  } finally {
    await connection.close();
  }
}

describe('the embedded stack', () => {
  it('serves the pinned Kubernetes version to the pinned kubectl', () => {
    const version = kubectl(['version', '-o', 'json']);
    const parsed = JSON.parse(version.stdout) as {
      clientVersion: { gitVersion: string };
      serverVersion: { gitVersion: string };
    };
    expect(parsed.clientVersion.gitVersion).toBe(readPins().kubernetes);
    expect(parsed.serverVersion.gitVersion).toBe(readPins().kubernetes);
  });

  it('reuses the running components when started twice', async () => {
    const layout = testLayout();
    const before = await stackStatus(layout, testStackOptions);
    expect(before.every((c) => c.ready)).toBe(true);
    await startStack(layout, testLog, testStackOptions);
    const after = await stackStatus(layout, testStackOptions);
    expect(after.map((c) => c.pid)).toEqual(before.map((c) => c.pid));
  });

  it("keeps its Temporal server's SQLite database in write-ahead-log mode", () => {
    // SQLite's file header says how the database is journalled: bytes 18 and 19 (write and read format
    // versions) are 1 for the default rollback journal and 2 for a write-ahead log.
    const header = readFileSync(testLayout().temporalDb).subarray(18, 20);
    expect([...header]).toEqual([2, 2]);
  });

  it('keeps a workflow started on its Temporal server across a stop and start, and stop leaves no process', async () => {
    const layout = testLayout();
    const workflowId = `stack-probe-${Date.now()}`;
    const connection = await Connection.connect({ address: layout.temporalAddress });
    try {
      // No worker serves this type: the workflow simply waits, which is all a persistence check needs.
      await new WorkflowClient({ connection }).start('helmflowStackProbe', {
        taskQueue: 'helmflow-stack-probe',
        workflowId,
      });
    } finally {
      await connection.close();
    }
    expect((await describeWorkflow(workflowId)).status.name).toBe('RUNNING');

    await stopStack(layout, testLog);
    expect(processesUnder(layout.stateDir)).toEqual([]);
    expect((await stackStatus(layout, testStackOptions)).some((c) => c.running)).toBe(false);

    await startStack(layout, testLog, testStackOptions);
    const after = await describeWorkflow(workflowId);
    expect(after.workflowId).toBe(workflowId);
    expect(after.status.name).toBe('RUNNING');
    expect(kubectl(['get', 'nodes']).stdout).toMatch(/helmflow-native\s+Ready/);
  });
});
