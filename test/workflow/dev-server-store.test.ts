import { useTemporal } from './support/use-temporal.js';
import { uniqueName } from './support/harness.js';

const temporal = useTemporal();

/** How long the calls run out mid-way, and how many at once (as a loaded worker and controller would). */
const HAMMER_MS = 20_000;
const CALLERS = 32;

describe('the pinned Temporal dev server (tools/build.sh)', () => {
  // The dev server keeps its whole store in one in-memory SQLite connection. With the driver the CLI's own module
  // names (modernc.org/sqlite v1.34.1), a call whose deadline ran out while its query returned rows left that
  // connection interrupted for good: every later call failed with "interrupted (9)" until a restart. This test
  // failed so on that build; tools/build.sh now builds the CLI with the driver tools/pins.json names.
  it('keeps answering after thousands of calls whose deadlines run out mid-query', async () => {
    const { connection, workflow } = temporal.client;
    const service = connection.workflowService;
    const namespace = 'default';
    const ids: string[] = [];
    for (let i = 0; i < 20; i += 1) {
      const handle = await workflow.start('unserved', { taskQueue: uniqueName('nobody'), workflowId: uniqueName('w') });
      ids.push(handle.workflowId);
    }
    const pick = <T>(items: readonly T[]): T => items[Math.floor(Math.random() * items.length)] as T;
    const reads: (() => Promise<unknown>)[] = [
      () => service.listWorkflowExecutions({ namespace, pageSize: 100 }),
      () => service.describeWorkflowExecution({ namespace, execution: { workflowId: pick(ids) } }),
      () => service.getWorkflowExecutionHistory({ namespace, execution: { workflowId: pick(ids) } }),
    ];
    let calls = 0;
    let expired = 0;
    const end = Date.now() + HAMMER_MS;
    const caller = async (): Promise<void> => {
      while (Date.now() < end) {
        calls += 1;
        try {
          // 1–15 ms: long enough to reach the store, short enough to run out while it reads.
          await connection.withDeadline(Date.now() + 1 + Math.floor(Math.random() * 15), pick(reads));
        } catch {
          expired += 1;
        }
      }
    };
    await Promise.all(Array.from({ length: CALLERS }, caller));
    // The test is only worth something if many calls did run out.
    expect(expired).toBeGreaterThan(500);
    const answered = await connection.withDeadline(Date.now() + 10_000, async () => {
      const listed = await service.listWorkflowExecutions({ namespace, pageSize: 100 });
      const described = await service.describeWorkflowExecution({ namespace, execution: { workflowId: ids[0] } });
      return { listed: listed.executions.length, id: described.workflowExecutionInfo?.execution?.workflowId };
    });
    expect(answered).toEqual({ listed: ids.length, id: ids[0] });
    console.log(`dev server store: ${String(calls)} calls, ${String(expired)} ran out; it still answers`);
  }, 90_000);
});
