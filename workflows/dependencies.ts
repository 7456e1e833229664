/**
 * A chart whose depends-on annotation holds it back (the controller passes the hold in the desired state): no
 * install starts while it holds. This module only reports each change on the chart, once, and in the Temporal
 * UI's current details while it holds.
 */
import { setCurrentDetails } from '@temporalio/workflow';
import { DEPENDS_ON_ANNOTATION } from '../src/api/depends-on.js';
import { DependenciesReadyCondition } from '../src/api/reasons.js';
import type { DependencyHold } from './contract.js';
import { phaseAfterResume, type ChartState } from './state.js';
import type { ChartSteps } from './steps.js';
import { ChartEventReason } from '../src/api/event-reasons.js';

const eventReason: Record<DependencyHold['reason'], ChartEventReason> = {
  [DependenciesReadyCondition.notReady]: ChartEventReason.WaitingForDependencies,
  [DependenciesReadyCondition.cycle]: ChartEventReason.DependencyCycle,
  [DependenciesReadyCondition.invalid]: ChartEventReason.InvalidDependsOn,
};

export async function reportDependencies(
  chart: ChartSteps,
  state: ChartState,
  change: DependencyHold | 'ready',
): Promise<void> {
  const previous = state.dependenciesReported;
  state.dependenciesReported = change === 'ready' ? undefined : change;
  const refused = change !== 'ready' && change.reason !== DependenciesReadyCondition.notReady;
  // A refusal is the chart's last failure until the annotations change; a wait is not a failure.
  const digest = state.desired?.digest;
  if (refused && digest !== undefined) state.lastFailure = { reason: change.reason, digest };
  else if (previous !== undefined && state.lastFailure?.reason === previous.reason) state.lastFailure = undefined;
  setCurrentDetails(change === 'ready' ? '' : `${chart.where}: ${change.message}`);
  const phase = state.suspendReported === true ? 'Suspended' : phaseAfterResume(state);
  chart.setPhase(phase);
  if (state.uid === undefined) return;
  const condition =
    change === 'ready'
      ? {
          type: DependenciesReadyCondition.type,
          status: 'True' as const,
          reason: DependenciesReadyCondition.ready,
          message: `every chart named by ${DEPENDS_ON_ANNOTATION} is installed`,
        }
      : {
          type: DependenciesReadyCondition.type,
          status: 'False' as const,
          reason: change.reason,
          message: change.message,
        };
  await chart.setStatus(chart.target(), { phase, conditions: [condition] });
  await chart.recordEvent(chart.target(), {
    type: refused ? 'Warning' : 'Normal',
    reason: change === 'ready' ? ChartEventReason.DependenciesReady : eventReason[change.reason],
    message: condition.message,
  });
}
