import type { Client } from '@temporalio/client';
import type { helmChartWorkflow } from '../../workflows/chart.js';
import {
  chartWorkflowId,
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

  private options(ref: ChartRef) {
    return {
      taskQueue: this.taskQueue,
      workflowId: chartWorkflowId(ref),
      args: [{ ref, ...(this.tuning ? { tuning: this.tuning } : {}) }] as Parameters<typeof helmChartWorkflow>,
    };
  }

  async desired(ref: ChartRef, state: DesiredState): Promise<void> {
    await this.client.workflow.signalWithStart('helmChartWorkflow', {
      ...this.options(ref),
      signal: desiredStateSignal,
      signalArgs: [state],
    });
  }

  async delete(ref: ChartRef, request: DeleteRequest): Promise<void> {
    await this.client.workflow.signalWithStart('helmChartWorkflow', {
      ...this.options(ref),
      signal: deleteSignal,
      signalArgs: [request],
    });
  }

  async releaseChanged(ref: ChartRef): Promise<void> {
    await this.client.workflow.signalWithStart('helmChartWorkflow', {
      ...this.options(ref),
      signal: releaseChangedSignal,
      signalArgs: [],
    });
  }

  async retry(ref: ChartRef, request: RetryRequest): Promise<void> {
    await this.client.workflow.signalWithStart('helmChartWorkflow', {
      ...this.options(ref),
      signal: retrySignal,
      signalArgs: [request],
    });
  }
}
