import type { Context } from '@temporalio/activity';
import type { Logger } from 'pino';
import { GrpcStatus, grpcCode } from '../src/lib/grpc-status.js';

/** How long the question may take; past it the step is taken as wanted (the slot stays held meanwhile). */
const ASK_MS = 5_000;

/**
 * Whether the workflow still waits for this activity, asked of Temporal now: one heartbeat sent past the SDK's
 * throttle, whose answer says whether a cancel was requested. The SDK sends a waiting step's heartbeats at most every
 * 48 s (awaitJobSlot; 16 s near the front of the line), so a step whose chart was paused, deleted or changed could
 * otherwise take a Job slot no one will use. NotFound means the workflow's run or this attempt has ended (a pause
 * continues the run as new; a lost attempt was retried): not wanted either. Any other error, or no answer within
 * ASK_MS, leaves the step as it was (wanted), so an unreachable Temporal costs at most what the throttle did.
 */
export async function stillWanted(context: Context, log: Logger): Promise<boolean> {
  try {
    const { client } = context;
    const answer = await client.connection.withDeadline(Date.now() + ASK_MS, () =>
      client.workflowService.recordActivityTaskHeartbeat({
        namespace: context.info.namespace,
        taskToken: context.info.taskToken,
      }),
    );
    return !answer.cancelRequested;
  } catch (err) {
    if (grpcCode(err) === GrpcStatus.notFound) return false;
    log.warn({ err }, 'could not ask Temporal whether a slot wait is still wanted; taking the slot');
    return true;
  }
}
