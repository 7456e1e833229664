import type { HelmChart, HelmChartCondition } from '../../../../src/api/index.js';
import { DryRunRenderedCondition, InstalledCondition, SourceAccessibleCondition } from '../../../../src/api/reasons.js';

/**
 * Where a generated chart ended:
 * - refused: kubectl apply failed, with the apiserver's message;
 * - installed: phase Installed for its current generation, Failed not True;
 * - failed: a failure condition with a reason (see failureCondition);
 * - silent: none of these by the deadline: the defect the fuzz suite exists to catch.
 */
export type Outcome =
  | { kind: 'refused'; field: string; message: string }
  | { kind: 'installed' }
  | { kind: 'failed'; type: string; reason: string; message: string }
  | { kind: 'silent'; phase: string; conditions: string };

/**
 * The condition that says the chart failed: Failed=True with a reason (the Job failed, or the install was refused),
 * else Installed=False with reason InstallAttemptFailed: a pod of the install Job failed while the Job still
 * retries under backOffLimit, said at once by Kubernetes conventions, so it counts as said, not silent; else
 * pre-flight's SourceAccessible=False or DryRunRendered=False: the chart could not be fetched or rendered, said
 * with helm's message before anything was applied.
 */
export function failureCondition(chart: HelmChart): HelmChartCondition | undefined {
  const conditions = chart.status?.conditions ?? [];
  const said = (c: HelmChartCondition) => (c.reason ?? '') !== '';
  return (
    conditions.find((c) => c.type === 'Failed' && c.status === 'True' && said(c)) ??
    conditions.find(
      (c) =>
        c.type === InstalledCondition.type && c.status === 'False' && c.reason === InstalledCondition.attemptFailed,
    ) ??
    conditions.find(
      (c) =>
        (c.type === SourceAccessibleCondition.type || c.type === DryRunRenderedCondition.type) &&
        c.status === 'False' &&
        said(c),
    )
  );
}

export function isInstalled(chart: HelmChart): boolean {
  const failed = chart.status?.conditions?.find((c) => c.type === 'Failed');
  return (
    chart.status?.phase === 'Installed' &&
    chart.status.observedGeneration === chart.metadata.generation &&
    failed?.status !== 'True'
  );
}

/** The chart's outcome now, or undefined while it may still settle. */
export function settledOutcome(chart: HelmChart): Outcome | undefined {
  const failure = failureCondition(chart);
  if (failure !== undefined) {
    return { kind: 'failed', type: failure.type, reason: failure.reason ?? '', message: failure.message ?? '' };
  }
  return isInstalled(chart) ? { kind: 'installed' } : undefined;
}

export function silentOutcome(chart: HelmChart | undefined): Outcome {
  const conditions = (chart?.status?.conditions ?? []).map((c) => `${c.type}=${c.status}/${c.reason ?? ''}`);
  return { kind: 'silent', phase: chart?.status?.phase ?? '(no status)', conditions: conditions.join(',') };
}

const FIELD = /\b(?:metadata|spec)(?:\.[A-Za-z]+)+/u;

/**
 * The fields an apiserver refusal names (metadata.name, spec.timeout, …), for grouping. kubectl prints one cause
 * or a `* `-list of them, each `<field>: <kind>: <detail>`; a CEL rule on the object itself reports `<nil>` (or the
 * parent) as the field and names the real one in its message. Anything else is its first line.
 */
export function refusedField(message: string): string {
  const rest = /is invalid: ([\s\S]*)$/u.exec(message)?.[1] ?? '';
  const causes = rest
    .split(/\n\* |^\* |, (?=(?:<nil>|metadata|spec)[.:[])/mu)
    .map((c) => c.trim())
    .filter((c) => c !== '' && c !== '[' && c !== ']');
  const fields = causes.map((cause) => {
    const [, field = '', detail = ''] = /^\[?(\S+?): ([\s\S]*)$/u.exec(cause) ?? [];
    const named = FIELD.exec(detail)?.[0];
    // The field reported, or the one a rule on its parent names in its message.
    return field === '<nil>' || (named !== undefined && named.startsWith(`${field}.`)) ? (named ?? field) : field;
  });
  // Server-side apply's own type check: `failed to create typed patch object (…): .spec.x: expected …`.
  const typed = /typed patch object[^\n]*?: \.((?:metadata|spec)(?:\.[A-Za-z]+)+)/u.exec(message)?.[1];
  if (typed !== undefined) fields.push(typed);
  // `<nil>` with no field named is the apiserver's "some rules were not checked" note, not a cause.
  const distinct = [...new Set(fields.filter((f) => f !== '' && f !== '<nil>'))];
  if (distinct.length > 0) return distinct.join(', ');
  const first = message.split('\n').find((line) => line.trim() !== '') ?? '';
  return first.trim().slice(0, 60);
}

/** The row an outcome is counted in. */
export function outcomeRow(outcome: Outcome): string {
  switch (outcome.kind) {
    case 'refused':
      return `refused: ${outcome.field}`;
    case 'installed':
      return 'Installed';
    case 'failed':
      return `${outcome.type}: ${outcome.reason}`;
    case 'silent':
      return `SILENT: ${outcome.phase}`;
  }
}
