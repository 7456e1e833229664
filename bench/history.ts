// What the benches say of a workflow's history.
import type { WorkflowHandle } from '@temporalio/client';
import { tsToMs } from '@temporalio/common/lib/time.js';
import proto from '@temporalio/proto';

export type HistoryEvent = proto.temporal.api.history.v1.IHistoryEvent;

/** A workflow's history events, read once for all the figures a bench derives from them. */
export async function historyEvents(handle: WorkflowHandle): Promise<HistoryEvent[]> {
  return (await handle.fetchHistory()).events ?? [];
}

/** History events counted by type, in order of first appearance: "WORKFLOW_TASK_STARTED×5, …". */
export function eventsByType(events: HistoryEvent[]): { events: number; types: string } {
  const types = new Map<string, number>();
  for (const event of events) {
    const name = (proto.temporal.api.enums.v1.EventType[event.eventType ?? 0] ?? '?').replace(/^EVENT_TYPE_/, '');
    types.set(name, (types.get(name) ?? 0) + 1);
  }
  return {
    events: events.length,
    types: [...types].map(([name, n]) => (n === 1 ? name : `${name}×${String(n)}`)).join(', '),
  };
}

/**
 * The signals a workflow took and the steps it scheduled, each by name, added into `into`: "signal desiredState",
 * "step awaitJob". Over all charts, it says what a run's history was spent on.
 */
export function countNamed(events: HistoryEvent[], into: Map<string, number>): Map<string, number> {
  for (const event of events) {
    const signal = event.workflowExecutionSignaledEventAttributes?.signalName;
    const step = event.activityTaskScheduledEventAttributes?.activityType?.name;
    const key = signal != null ? `signal ${signal}` : step != null ? `step ${step}` : undefined;
    if (key !== undefined) into.set(key, (into.get(key) ?? 0) + 1);
  }
  return into;
}

/**
 * The activity attempts a workflow's history started, by step, added into `into`. A step's history keeps only its
 * last attempt's start, whose number counts every attempt before it too; a step never started counts none.
 */
export function countAttemptsStarted(events: HistoryEvent[], into: Map<string, number>): Map<string, number> {
  const scheduledOf = scheduledSteps(events);
  for (const event of events) {
    const started = event.activityTaskStartedEventAttributes;
    if (started == null) continue;
    const type = scheduledOf.get(String(started.scheduledEventId))?.activityType?.name ?? '?';
    into.set(type, (into.get(type) ?? 0) + (started.attempt ?? 1));
  }
  return into;
}

type ScheduledStep = proto.temporal.api.history.v1.IActivityTaskScheduledEventAttributes;

/** What each ActivityTaskScheduled event says (its step, its timeouts), by its event id. */
function scheduledSteps(events: HistoryEvent[]): Map<string, ScheduledStep> {
  const scheduledOf = new Map<string, ScheduledStep>();
  for (const event of events) {
    const scheduled = event.activityTaskScheduledEventAttributes;
    if (scheduled != null) scheduledOf.set(String(event.eventId), scheduled);
  }
  return scheduledOf;
}

/** A workflow's history events counted by type (see eventsByType). */
export async function historyByType(handle: WorkflowHandle): Promise<{ events: number; types: string }> {
  return eventsByType(await historyEvents(handle));
}

/**
 * The steps of a workflow that ran more than once, and why the attempt before the last ended: "awaitJobSlot
 * attempt 2 (before: HEARTBEAT timeout of 20 s)", the timeout the step was scheduled with, which is what a lost
 * attempt cost. Temporal records only an activity's last attempt, with the failure of the one before it.
 */
export function retriedSteps(events: HistoryEvent[]): string[] {
  const scheduledOf = scheduledSteps(events);
  const { TIMEOUT_TYPE_HEARTBEAT: heartbeat } = proto.temporal.api.enums.v1.TimeoutType;
  const retried: string[] = [];
  for (const event of events) {
    const started = event.activityTaskStartedEventAttributes;
    if (started == null || (started.attempt ?? 1) <= 1) continue;
    const failure = started.lastFailure;
    const timeout = failure?.timeoutFailureInfo?.timeoutType;
    const scheduled = scheduledOf.get(String(started.scheduledEventId));
    const of =
      timeout === heartbeat && scheduled?.heartbeatTimeout != null
        ? ` of ${String(tsToMs(scheduled.heartbeatTimeout) / 1000)} s`
        : '';
    const before =
      timeout != null
        ? `${proto.temporal.api.enums.v1.TimeoutType[timeout].replace(/^TIMEOUT_TYPE_/, '')} timeout${of}`
        : (failure?.message ?? '?').slice(0, 80);
    const type = scheduled?.activityType?.name ?? '?';
    retried.push(`${type} attempt ${String(started.attempt)} (before: ${before})`);
  }
  return retried;
}

const secondsAfter = (event: HistoryEvent, sinceMs: number) =>
  ((Number(event.eventTime?.seconds ?? 0) * 1000 + (event.eventTime?.nanos ?? 0) / 1e6 - sinceMs) / 1000).toFixed(1);

/**
 * Each step of a workflow run as one line, times in seconds after `sinceMs` (the chart's creation, say):
 * "awaitJobSlot: scheduled 12.0, started 12.1 (attempt 1), completed 240.3". Signals and timers too. For the
 * chart that waited longest, so a run can say where its time went.
 */
export function stepTimeline(events: HistoryEvent[], sinceMs: number): string[] {
  const lines = new Map<string, string>();
  const order: string[] = [];
  const add = (id: string, text: string) => {
    if (!lines.has(id)) order.push(id);
    lines.set(id, `${lines.get(id) ?? ''}${text}`);
  };
  for (const event of events) {
    const at = secondsAfter(event, sinceMs);
    const scheduled = event.activityTaskScheduledEventAttributes;
    if (scheduled != null) add(String(event.eventId), `${scheduled.activityType?.name ?? '?'}: scheduled ${at}`);
    const started = event.activityTaskStartedEventAttributes;
    if (started != null) add(String(started.scheduledEventId), `, started ${at} (attempt ${String(started.attempt)})`);
    const ends: [string, { scheduledEventId?: unknown } | null | undefined][] = [
      ['completed', event.activityTaskCompletedEventAttributes],
      ['failed', event.activityTaskFailedEventAttributes],
      ['timed out', event.activityTaskTimedOutEventAttributes],
      ['cancelled', event.activityTaskCanceledEventAttributes],
    ];
    for (const [how, end] of ends) if (end != null) add(String(end.scheduledEventId), `, ${how} ${at}`);
    const signal = event.workflowExecutionSignaledEventAttributes;
    if (signal != null) add(`s${String(event.eventId)}`, `signal ${signal.signalName ?? '?'} ${at}`);
    const timer = event.timerStartedEventAttributes;
    if (timer != null) add(`t${String(event.eventId)}`, `timer started ${at}`);
    if (event.workflowExecutionContinuedAsNewEventAttributes != null)
      add(`c${String(event.eventId)}`, `continued as new ${at}`);
  }
  return order.map((id) => lines.get(id) ?? '');
}
