import type { Client } from '@temporalio/client';
import type { helmChartWorkflow } from '../../workflows/chart.js';
import {
  chartSearchAttributes,
  chartWorkflowId,
  phaseAtStart,
  deleteSignal,
  desiredStateSignal,
  releaseChangedSignal,
  retrySignal,
  type ChartRef,
  type DeleteRequest,
  type DesiredState,
  type RetryRequest,
  type Tuning,
} from '../../workflows/contract.js';

/**
 * Sends signals to a chart's workflow, starting it if it does not run. signalWithStart is the only way a chart
 * workflow starts, so the controller never needs to know whether one exists.
 */
export class ChartSignals {
  constructor(
    private readonly client: Client,
    private readonly taskQueue: string,
    private readonly tuning: Partial<Tuning> | undefined,
  ) {}

  /** Options of a signalWithStart; the search attributes apply only when it starts the workflow. */
  private options(ref: ChartRef, signal: Parameters<typeof phaseAtStart>[0]) {
    return {
      taskQueue: this.taskQueue,
      workflowId: chartWorkflowId(ref),
      args: [{ ref, ...(this.tuning ? { tuning: this.tuning } : {}) }] as Parameters<typeof helmChartWorkflow>,
      typedSearchAttributes: chartSearchAttributes(ref, phaseAtStart(signal)),
    };
  }

  /** Each signal returns the run it reached, so the controller can tell later whether that run still holds it. */
  async desired(ref: ChartRef, state: DesiredState): Promise<string> {
    const { signaledRunId } = await this.client.workflow.signalWithStart('helmChartWorkflow', {
      ...this.options(ref, 'desired'),
      signal: desiredStateSignal,
      signalArgs: [state],
    });
    return signaledRunId;
  }

  async delete(ref: ChartRef, request: DeleteRequest): Promise<string> {
    const { signaledRunId } = await this.client.workflow.signalWithStart('helmChartWorkflow', {
      ...this.options(ref, 'delete'),
      signal: deleteSignal,
      signalArgs: [request],
    });
    return signaledRunId;
  }

  /** The stored helm release moved away from the chart's status: the workflow reads it again. */
  async releaseChanged(ref: ChartRef): Promise<string> {
    const { signaledRunId } = await this.client.workflow.signalWithStart('helmChartWorkflow', {
      ...this.options(ref, 'releaseChanged'),
      signal: releaseChangedSignal,
      signalArgs: [],
    });
    return signaledRunId;
  }

  async retry(ref: ChartRef, request: RetryRequest): Promise<string> {
    const { signaledRunId } = await this.client.workflow.signalWithStart('helmChartWorkflow', {
      ...this.options(ref, 'retry'),
      signal: retrySignal,
      signalArgs: [request],
    });
    return signaledRunId;
  }
}
