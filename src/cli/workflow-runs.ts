import type { Client } from '@temporalio/client';
import type proto from '@temporalio/proto';
import { chartWorkflowId, type ChartRef } from '../../workflows/contract.js';

/** One run of a chart's workflow and its history: continue-as-new starts a new run under the same id. */
export interface WorkflowRun {
  runId: string;
  events: proto.temporal.api.history.v1.IHistoryEvent[];
}

/**
 * The runs of the chart's workflow, oldest first, each with its history; only the newest `lastRuns` are read
 * when given (a chart that has continued as new many times keeps every run until Temporal's retention drops it).
 */
export async function chartWorkflowRuns(client: Client, ref: ChartRef, lastRuns?: number): Promise<WorkflowRun[]> {
  const workflowId = chartWorkflowId(ref);
  const runs: { runId: string; start: number }[] = [];
  for await (const execution of client.workflow.list({ query: `WorkflowId = "${workflowId}"` })) {
    runs.push({ runId: execution.runId, start: execution.startTime.getTime() });
  }
  runs.sort((a, b) => a.start - b.start);
  const read = lastRuns === undefined ? runs : runs.slice(-lastRuns);
  const histories: WorkflowRun[] = [];
  for (const { runId } of read) {
    const history = await client.workflow.getHandle(workflowId, runId).fetchHistory();
    histories.push({ runId, events: history.events ?? [] });
  }
  return histories;
}
