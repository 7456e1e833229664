// What the benches say of a workflow's history.
import type { WorkflowHandle } from '@temporalio/client';
import proto from '@temporalio/proto';

/** A workflow's history events counted by type, in order of first appearance: "WORKFLOW_TASK_STARTED×5, …". */
export async function historyByType(handle: WorkflowHandle): Promise<{ events: number; types: string }> {
  const history = await handle.fetchHistory();
  const types = new Map<string, number>();
  for (const event of history.events ?? []) {
    const name = (proto.temporal.api.enums.v1.EventType[event.eventType ?? 0] ?? '?').replace(/^EVENT_TYPE_/, '');
    types.set(name, (types.get(name) ?? 0) + 1);
  }
  return {
    events: history.events?.length ?? 0,
    types: [...types].map(([name, n]) => (n === 1 ? name : `${name}×${String(n)}`)).join(', '),
  };
}
