/**
 * The Paused condition's turns: a Temporal cancel pauses the chart (its install Job deleted); a retry, or a new
 * generation of the spec, ends the pause. Each is said on the chart's status and, for a person's act, in an Event.
 */
import { installJobName } from '../src/build/names.js';
import { ChartEventReason } from '../src/api/event-reasons.js';
import { PausedCondition } from '../src/api/reasons.js';
import type { ChartState } from './state.js';
import { activities, waitingCall, type ChartSteps } from './steps.js';

/** Temporal cancel: stop the current attempt, delete its Job, and hold until the spec changes or a retry. */
export async function pause(chart: ChartSteps, state: ChartState): Promise<void> {
  const { ref, personWaiting } = chart;
  state.paused = true;
  chart.setPhase('Paused');
  if (state.uid === undefined) return;
  await activities.deleteJob.executeWithOptions(
    {
      ...waitingCall,
      ...personWaiting,
      summary: `Delete Job ${installJobName(ref.name)}: the workflow was cancelled`,
    },
    [ref, installJobName(ref.name)],
  );
  const message = 'cancelled through Temporal: paused until the spec changes or a retry is requested';
  await chart.setStatus(
    chart.target(),
    {
      phase: 'Paused',
      conditions: [{ type: PausedCondition.type, status: 'True', reason: PausedCondition.cancelled, message }],
    },
    personWaiting,
  );
  await chart.recordEvent(chart.target(), { type: 'Normal', reason: ChartEventReason.Paused, message }, personWaiting);
}

/** A retry signal: ends a pause or a failure hold, and reruns the install even when nothing changed. */
export async function acceptRetry(chart: ChartSteps, state: ChartState): Promise<void> {
  const { personWaiting } = chart;
  const request = state.retryRequest;
  state.retryRequest = undefined;
  if (request === undefined) return;
  const wasPaused = state.paused;
  state.paused = false;
  state.halted = undefined;
  state.failures = 0;
  // helm upgrade --install converges, so rerunning an installed state is harmless.
  state.installedDigest = undefined;
  if (state.uid === undefined || state.desired === undefined) return;
  const message = `retry requested by ${request.requestedBy}${wasPaused ? '; the chart is no longer paused' : ''}`;
  await chart.setStatus(
    chart.target(),
    {
      conditions: [{ type: PausedCondition.type, status: 'False', reason: PausedCondition.retryRequested, message }],
    },
    personWaiting,
  );
  await chart.recordEvent(chart.target(), { type: 'Normal', reason: ChartEventReason.Retry, message }, personWaiting);
}

/** A new generation of the spec ended a pause (chart.ts acceptDesired): the chart must stop saying it is paused. */
export async function unpausedBySpec(chart: ChartSteps, state: ChartState): Promise<void> {
  if (state.uid === undefined || state.desired === undefined) return;
  const message = `generation ${state.desired.generation} of the spec arrived; the chart is no longer paused`;
  await chart.setStatus(chart.target(), {
    conditions: [{ type: PausedCondition.type, status: 'False', reason: PausedCondition.specChanged, message }],
  });
}
