import { isPending, type ReleaseRecord } from './record.js';

/**
 * Whether a release must be unlocked before the next attempt: its newest revision is pending-* (a helm that
 * died mid-operation leaves it so, and helm then refuses every later operation with "another operation is in
 * progress"), and no helmflow Job of the chart runs — the caller has just removed any. Pure: table-tested.
 */
export function needsUnlock(status: string | undefined, jobRunning: boolean): boolean {
  return status !== undefined && isPending(status) && !jobRunning;
}

/**
 * The record as helm itself leaves a release whose operation failed: status failed, with a description saying
 * why. What `helm rollback` or a Flux-style unlock does, so the next `helm upgrade --install` proceeds.
 */
export function markedFailed(record: ReleaseRecord, why: string): ReleaseRecord {
  return { ...record, info: { ...record.info, status: 'failed', description: why } };
}
