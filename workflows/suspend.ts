/**
 * A durable suspend, held by the chart's annotation (the controller passes it in the desired state): while it is
 * there no install runs, whatever else changes. This module only reports the change on the chart, once.
 */
import { phaseAfterResume, type ChartState } from './state.js';
import type { ChartSteps } from './steps.js';
import { ChartEventReason } from '../src/api/event-reasons.js';
import { SuspendedCondition } from '../src/api/reasons.js';

export async function reportSuspension(
  chart: ChartSteps,
  state: ChartState,
  change: 'suspended' | 'resumed',
): Promise<void> {
  const suspended = change === 'suspended';
  state.suspendReported = suspended;
  const phase = suspended ? 'Suspended' : phaseAfterResume(state);
  chart.setPhase(phase);
  if (state.uid === undefined) return;
  const message = suspended
    ? 'annotated helm.k3sm.io/suspend: no install runs until the annotation is removed'
    : 'the helm.k3sm.io/suspend annotation was removed: installs run again';
  const reason = suspended ? SuspendedCondition.suspended : SuspendedCondition.resumed;
  await chart.setStatus(chart.target(), {
    phase,
    conditions: [{ type: SuspendedCondition.type, status: suspended ? 'True' : 'False', reason, message }],
  });
  await chart.recordEvent(chart.target(), {
    type: 'Normal',
    reason: suspended ? ChartEventReason.Suspended : ChartEventReason.Resumed,
    message,
  });
}
