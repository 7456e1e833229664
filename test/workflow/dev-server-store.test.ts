import { isGrpcServiceError } from '@temporalio/client';
import { newSeed, Prng } from '../e2e/support/prng.js';
import { useTemporal } from './support/use-temporal.js';
import { uniqueName } from './support/harness.js';

const temporal = useTemporal();

/** How long the calls run out mid-way, and how many at once (as a loaded worker and controller would). */
const HAMMER_MS = 20_000;
const CALLERS = 32;
/** gRPC's status code for a call whose deadline ran out. */
const DEADLINE_EXCEEDED = 4;

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
    const random = new Prng(newSeed());
    const reads: (() => Promise<unknown>)[] = [
      () => service.listWorkflowExecutions({ namespace, pageSize: 100 }),
      () => service.describeWorkflowExecution({ namespace, execution: { workflowId: random.pick(ids) } }),
      () => service.getWorkflowExecutionHistory({ namespace, execution: { workflowId: random.pick(ids) } }),
    ];
    const counts = { answered: 0, ranOut: 0, failed: 0 };
    const end = Date.now() + HAMMER_MS;
    const caller = async (): Promise<void> => {
      // Each caller moves its deadline towards the time a call takes here (longer after one ran out, shorter
      // after one answered), so about half run out while the server works on them, on a fast machine or a slow.
      let deadlineMs = 5;
      while (Date.now() < end) {
        try {
          await connection.withDeadline(Date.now() + deadlineMs * (0.5 + random.next()), random.pick(reads));
          counts.answered += 1;
          deadlineMs = Math.max(1, deadlineMs * 0.8);
        } catch (err) {
          const code: number | undefined = isGrpcServiceError(err) ? err.code : undefined;
          if (code === DEADLINE_EXCEEDED) counts.ranOut += 1;
          else counts.failed += 1;
          deadlineMs = Math.min(2_000, deadlineMs * 1.25 + 1);
        }
      }
    };
    await Promise.all(Array.from({ length: CALLERS }, caller));
    const answered = await connection.withDeadline(Date.now() + 10_000, async () => {
      const listed = await service.listWorkflowExecutions({ namespace, pageSize: 100 });
      const described = await service.describeWorkflowExecution({ namespace, execution: { workflowId: ids[0] } });
      return { listed: listed.executions.length, id: described.workflowExecutionInfo?.execution?.workflowId };
    });
    expect(answered).toEqual({ listed: ids.length, id: ids[0] });
    console.log(`dev server store: ${JSON.stringify(counts)}; it still answers`);
    // The test is only worth something if many calls ran out and many did not: the deadlines fell mid-call.
    expect(counts.ranOut).toBeGreaterThan(500);
    expect(counts.answered).toBeGreaterThan(500);
  }, 90_000);
});
