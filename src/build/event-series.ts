/**
 * Aggregation of a repeated Warning, as the kubelet does it: one Event object per chart and reason whose `count`,
 * `lastTimestamp` and message follow the latest occurrence, so a Job whose pods fail a thousand times makes one
 * Event with count 1000, not a thousand Events.
 *
 * An occurrence is a failed pod of one Job: `jobUid` and the Job's `status.failed` after it. The Event remembers
 * the last occurrence it counted (an annotation), so a report that is retried (a worker crashed after writing it)
 * counts nothing twice, and pods that failed while nobody looked are all counted.
 */
export interface Occurrence {
  jobUid: string;
  failedPods: number;
}

/** The annotation value that records the last occurrence counted. */
export function occurrenceMark(o: Occurrence): string {
  return `${o.jobUid}/${o.failedPods}`;
}

function parseMark(mark: string | undefined): Occurrence | undefined {
  const slash = mark?.lastIndexOf('/') ?? -1;
  if (mark === undefined || slash === -1) return undefined;
  const failedPods = Number(mark.slice(slash + 1));
  return Number.isInteger(failedPods) ? { jobUid: mark.slice(0, slash), failedPods } : undefined;
}

export type EventWrite = { kind: 'create'; count: number } | { kind: 'update'; count: number } | { kind: 'none' };

/** What to write for `occurrence` given the Event as it is now (undefined when there is none yet). */
export function nextEventWrite(
  existing: { count?: number; mark?: string } | undefined,
  occurrence: Occurrence,
): EventWrite {
  if (occurrence.failedPods < 1) return { kind: 'none' };
  if (existing === undefined) return { kind: 'create', count: occurrence.failedPods };
  const last = parseMark(existing.mark);
  const count = Math.max(existing.count ?? 1, 1);
  if (last === undefined || last.jobUid !== occurrence.jobUid) {
    return { kind: 'update', count: count + occurrence.failedPods };
  }
  const added = occurrence.failedPods - last.failedPods;
  return added > 0 ? { kind: 'update', count: count + added } : { kind: 'none' };
}
