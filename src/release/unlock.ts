/**
 * A release a helm that died mid-operation left pending-install, pending-upgrade or pending-rollback: helm refuses
 * every later operation on it ("another operation … is in progress") until someone marks it otherwise. These
 * decide when helmflow does, and what it writes (pure; src/kube/helm-releases.ts reads and writes the record).
 */
import type { ReleaseRecord } from './record.js';

const PENDING = new Set(['pending-install', 'pending-upgrade', 'pending-rollback']);

/** helm's refusal of an operation on a pending release (helm 4's pkg/action), as its log line ends. */
const REFUSAL = /another operation \(install\/upgrade\/rollback\) is in progress/u;

export function isPendingStatus(status: string | undefined): boolean {
  return status !== undefined && PENDING.has(status);
}

/** True when a failed helm pod's log says it was refused because the release is locked. */
export function refusedAsLocked(log: string): boolean {
  return REFUSAL.test(log);
}

/**
 * The record as helm itself leaves a failed operation: status failed, with a description saying who changed it
 * and why. Everything else (manifest, values, hooks) is kept as stored.
 */
export function unlockedRecord(record: ReleaseRecord, was: string, jobName: string): ReleaseRecord {
  return {
    ...record,
    info: {
      ...record.info,
      status: 'failed',
      description: `helmflow: was ${was}, but no pod of ${jobName} runs helm any more; marked failed so the next attempt may run`,
    },
  };
}
