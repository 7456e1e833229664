/**
 * The invariants a chaos run checks on what it recorded. Pure: the run gathers, these judge.
 *
 * One install Job per desired state and attempt. Each install attempt of a chart (its uid) creates at most one
 * Job, annotated with the digest of the desired state it was built from and the attempt's number; an activity
 * retried after a crash must find that Job, not create another. A Job that ends an attempt — failed and deleted
 * by `reinstall`, replaced by a spec change, deleted by someone — is followed by the next attempt, under a new
 * number. So in a correct system:
 *  - no (chart uid, digest, attempt) is created twice;
 *  - a chart's install Jobs, in the order they were created, carry strictly increasing attempts (a Job of an
 *    attempt the workflow already left is never created again);
 *  - each chart uid gets at most one delete Job;
 *  - an Installed chart's status digest is the digest of an install Job that was seen for that uid.
 */

/** One Job as the run saw it created (by the watch, or found by a list after a watch gap). */
export interface JobRecord {
  uid: string;
  name: string;
  chart: string;
  chartUid: string;
  /** install or delete */
  action: string;
  digest: string;
  attempt: string;
  seenAt: number;
  via: 'watch' | 'list';
}

export interface DuplicateJobs {
  key: string;
  jobUids: string[];
}

const installs = (jobs: readonly JobRecord[]) => jobs.filter((j) => j.action === 'install');

/** Install Job keys (chart uid, digest, attempt) created more than once. */
export function duplicateInstallJobs(jobs: readonly JobRecord[]): DuplicateJobs[] {
  const byKey = new Map<string, string[]>();
  for (const job of installs(jobs)) {
    const key = `${job.chart}/${job.chartUid} digest ${job.digest.slice(0, 12)} attempt ${job.attempt}`;
    byKey.set(key, [...(byKey.get(key) ?? []), job.uid]);
  }
  return [...byKey].filter(([, uids]) => uids.length > 1).map(([key, jobUids]) => ({ key, jobUids }));
}

/** Install Jobs whose attempt is not above the one created before it for the same chart uid. */
export function attemptRegressions(jobs: readonly JobRecord[]): string[] {
  const last = new Map<string, number>();
  const found: string[] = [];
  for (const job of installs(jobs)) {
    const attempt = Number(job.attempt);
    const before = last.get(job.chartUid);
    if (!Number.isInteger(attempt)) found.push(`${job.chart}: Job ${job.uid} has attempt "${job.attempt}"`);
    else if (before !== undefined && attempt <= before) {
      found.push(`${job.chart}: attempt ${attempt} created after attempt ${before}`);
    }
    if (Number.isInteger(attempt)) last.set(job.chartUid, Math.max(attempt, before ?? attempt));
  }
  return found;
}

/** Chart uids with more than one delete Job. */
export function repeatedDeleteJobs(jobs: readonly JobRecord[]): DuplicateJobs[] {
  const byChart = new Map<string, string[]>();
  for (const job of jobs.filter((j) => j.action === 'delete')) {
    const key = `${job.chart}/${job.chartUid}`;
    byChart.set(key, [...(byChart.get(key) ?? []), job.uid]);
  }
  return [...byChart].filter(([, uids]) => uids.length > 1).map(([key, jobUids]) => ({ key, jobUids }));
}

/** Installed charts whose status digest matches no install Job seen for their uid. */
export function installedWithoutJob(
  jobs: readonly JobRecord[],
  installed: readonly { name: string; uid: string; digest: string | undefined }[],
): string[] {
  return installed
    .filter((c) => !installs(jobs).some((j) => j.chartUid === c.uid && j.digest === c.digest))
    .map((c) => `${c.name} (digest ${String(c.digest).slice(0, 12)})`);
}

/**
 * How long after `since` every chart in `waiting` showed progress: the longest wait, or undefined when
 * nothing was waiting. `pending` lists the charts that showed none.
 */
export function stallAfter(
  since: number,
  waiting: readonly string[],
  progressSince: (name: string, since: number) => number | undefined,
): { stallMs: number | undefined; pending: string[] } {
  const pending = waiting.filter((name) => progressSince(name, since) === undefined);
  const times = waiting.map((name) => progressSince(name, since)).filter((t): t is number => t !== undefined);
  return { stallMs: times.length === 0 ? undefined : Math.max(...times) - since, pending };
}
