/**
 * A chart's install attempts, read back from the activity summaries its workflow history carries (the same
 * sentences the Temporal UI shows). Pure: `chart history` fetches the events, this reads them.
 */

/**
 * One event of a workflow history that carries a summary; or (`installSucceeded`) the end of a wait on an install
 * Job that succeeded: in lean runs the wait writes the success report itself, so no later summary says it.
 */
export interface SummarisedEvent {
  time: string;
  summary: string;
  installSucceeded?: true;
}

/** The summary of a wait on an install Job (workflows/install-wait.ts), whose result the CLI reads. */
export const installWait = /^Wait for \S+: helm upgrade --install /u;

export interface Attempt {
  attempt: number;
  started: string;
  outcome: 'succeeded' | 'failed' | 'cancelled' | 'superseded' | 'running';
  reason?: string;
}

const started = /\(attempt (\d+)\)$/u;
const succeeded = /^Status of HelmChart \S+: Installed\b/u;
const failedStatus = /^Status of HelmChart \S+: Failed, .*Failed=True \(([^)]+)\)/u;
const failedRecord = /^Record HelmChartInstallFailed for \S+ \(([^)]+)\)$/u;
const cancelled = /^Delete Job \S+: the workflow was cancelled$/u;

export function attemptsOf(events: SummarisedEvent[]): Attempt[] {
  const attempts: Attempt[] = [];
  for (const { time, summary, installSucceeded } of events) {
    const current = attempts.at(-1);
    const open = current?.outcome === 'running' ? current : undefined;
    const start = started.exec(summary);
    if (start !== null) {
      const n = Number(start[1]);
      if (current?.attempt === n) continue;
      if (open !== undefined) open.outcome = 'superseded';
      attempts.push({ attempt: n, started: time, outcome: 'running' });
      continue;
    }
    if (open === undefined) continue;
    const failure = failedRecord.exec(summary) ?? failedStatus.exec(summary);
    if (failure !== null) {
      open.outcome = 'failed';
      open.reason = failure[1];
    } else if (installSucceeded === true || succeeded.test(summary)) open.outcome = 'succeeded';
    else if (cancelled.test(summary)) open.outcome = 'cancelled';
  }
  return attempts;
}
