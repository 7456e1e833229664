import type { ChartEvent, StatusUpdate } from '../activities/types.js';

/**
 * One-line summaries the Temporal UI shows for the status and Event writes, so a chart's Event History reads as
 * what happened to it ("Status of kube-system/hello: Installed") rather than a column of bare activity names.
 */
export function statusSummary(where: string, update: StatusUpdate): string {
  const conditions = update.conditions.map((c) => `${c.type}=${c.status}${c.reason === '' ? '' : ` (${c.reason})`}`);
  const parts = [update.phase, ...conditions].filter((p): p is string => p !== undefined && p !== '');
  return `Status of HelmChart ${where}: ${parts.join(', ') || 'unchanged'}`;
}

export function eventSummary(where: string, event: ChartEvent): string {
  return `Event ${event.type} ${event.reason} on HelmChart ${where}`;
}
