import { Context } from '@temporalio/activity';
import type { Logger } from 'pino';

/**
 * What one step's attempt after the first knows of the attempt before it, as a log line. Temporal's history keeps
 * only a step's last attempt, and the failure of a timed-out attempt that was retried carries none of its
 * heartbeats; the server hands its last heartbeat's details to the next attempt instead. So this line is where an
 * operator (or a bench) can tell an attempt that never ran (none) from one that ran and went quiet (its last step).
 */
export interface RetriedStep {
  step: string;
  attempt: number;
  workflowId: string;
  /** What the attempt before said in its last heartbeat; undefined when it sent none. */
  lastHeartbeat: unknown;
  /** From this attempt's scheduling to its start on this worker. */
  startedAfterMs: number;
}

/** The retry a step's context describes, or undefined on its first attempt. Pure over the info it is given. */
export function retriedStepOf(
  step: string,
  info: Pick<
    Context['info'],
    'attempt' | 'heartbeatDetails' | 'currentAttemptScheduledTimestampMs' | 'workflowExecution'
  >,
  nowMs: number,
): RetriedStep | undefined {
  if (info.attempt <= 1) return undefined;
  return {
    step,
    attempt: info.attempt,
    workflowId: info.workflowExecution?.workflowId ?? '',
    lastHeartbeat: info.heartbeatDetails as unknown,
    startedAfterMs: Math.max(0, nowMs - info.currentAttemptScheduledTimestampMs),
  };
}

/** The message of the line, which the side-by-side bench looks for (bench/retried-steps.ts). */
export const RETRIED_MESSAGE = 'a step runs again';

/** Runs one step, first saying so in the log when it is an attempt after the first. */
export async function sayingRetries<T>(log: Logger, step: string, run: () => Promise<T>): Promise<T> {
  const retried = retriedStepOf(step, Context.current().info, Date.now());
  if (retried !== undefined) log.info(retried, RETRIED_MESSAGE);
  return run();
}
