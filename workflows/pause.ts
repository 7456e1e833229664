/**
 * The Paused condition's turns: a Temporal cancel pauses the chart (its install Job deleted); a retry, or a new
 * generation of the spec, ends the pause. Each is said on the chart's status and, for a person's act, in an Event.
 */
import { installJobName } from '../src/build/names.js';
import { ChartEventReason } from '../src/api/event-reasons.js';
import { PausedCondition } from '../src/api/reasons.js';
import type { ChartState } from './state.js';
import { act, waitingCall, type ChartSteps } from './steps.js';

/** Temporal cancel: stop the current attempt, delete its Job, and hold until the spec changes or a retry. */
export async function pause(c: ChartSteps, s: ChartState): Promise<void> {
  const { ref, personWaiting } = c;
  s.paused = true;
  c.setPhase('Paused');
  if (s.uid === undefined) return;
  await act.deleteJob.executeWithOptions(
    {
      ...waitingCall,
      ...personWaiting,
      summary: `Delete Job ${installJobName(ref.name)}: the workflow was cancelled`,
    },
    [ref, installJobName(ref.name)],
  );
  const message = 'cancelled through Temporal: paused until the spec changes or a retry is requested';
  await c.setStatus(
    c.target(),
    {
      phase: 'Paused',
      conditions: [{ type: PausedCondition.type, status: 'True', reason: PausedCondition.cancelled, message }],
    },
    personWaiting,
  );
  await c.recordEvent(c.target(), { type: 'Normal', reason: ChartEventReason.Paused, message }, personWaiting);
}

/** A retry signal: ends a pause or a failure hold, and reruns the install even when nothing changed. */
export async function acceptRetry(c: ChartSteps, s: ChartState): Promise<void> {
  const { personWaiting } = c;
  const request = s.retryRequest;
  s.retryRequest = undefined;
  if (request === undefined) return;
  const wasPaused = s.paused;
  s.paused = false;
  s.halted = undefined;
  s.failures = 0;
  // helm upgrade --install converges, so rerunning an installed state is harmless.
  s.installedDigest = undefined;
  if (s.uid === undefined || s.desired === undefined) return;
  const message = `retry requested by ${request.requestedBy}${wasPaused ? '; the chart is no longer paused' : ''}`;
  await c.setStatus(
    c.target(),
    {
      conditions: [{ type: PausedCondition.type, status: 'False', reason: PausedCondition.retryRequested, message }],
    },
    personWaiting,
  );
  await c.recordEvent(c.target(), { type: 'Normal', reason: ChartEventReason.Retry, message }, personWaiting);
}

/** A new generation of the spec ended a pause (chart.ts acceptDesired): the chart must stop saying it is paused. */
export async function unpausedBySpec(c: ChartSteps, s: ChartState): Promise<void> {
  if (s.uid === undefined || s.desired === undefined) return;
  const message = `generation ${s.desired.generation} of the spec arrived; the chart is no longer paused`;
  await c.setStatus(c.target(), {
    conditions: [{ type: PausedCondition.type, status: 'False', reason: PausedCondition.specChanged, message }],
  });
}
