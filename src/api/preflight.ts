import { DryRunRenderedCondition, SourceAccessibleCondition } from './reasons.js';

/** The reasons a failed pre-flight gives its condition, and its Events (event-reasons.ts). */
export type PreflightFailureReason =
  | (typeof SourceAccessibleCondition)['repositoryUnreachable' | 'chartNotFound' | 'versionNotFound']
  | typeof DryRunRenderedCondition.renderFailed;

/** What a failed pre-flight means for the chart: which condition is False, why, and helm's own words. */
export interface PreflightFailure {
  condition: typeof SourceAccessibleCondition.type | typeof DryRunRenderedCondition.type;
  reason: PreflightFailureReason;
  /** helm's error, from its `Error:` line on, without its "Use --debug" hint. */
  message: string;
}

/** helm's error text, from the last line that starts `Error:` to the end, hints and blank lines dropped. */
export function helmError(output: string): string {
  const lines = output.split('\n').map((line) => line.trimEnd());
  const start = lines.findLastIndex((line) => line.startsWith('Error: '));
  const kept = (start === -1 ? lines : lines.slice(start)).filter(
    (line) => line !== '' && !line.startsWith('Use --debug flag'),
  );
  return kept.join('\n').replace(/^Error: /u, '');
}

// Each row: helm's wording (helm v4.3.0: pkg/repo/v1, pkg/downloader, pkg/registry) and what it means. First match wins.
const sourceRules: readonly [RegExp, PreflightFailureReason][] = [
  [/ version "[^"]*" not found in .* repository/u, SourceAccessibleCondition.versionNotFound],
  [/^chart "[^"]*" matching .* not found in .* index/mu, SourceAccessibleCondition.versionNotFound],
  [/could not locate a version matching provided version string/u, SourceAccessibleCondition.versionNotFound],
  [/^chart "[^"]*" not found in .* repository/mu, SourceAccessibleCondition.chartNotFound],
  [/unable to locate any tags in provided repository/u, SourceAccessibleCondition.chartNotFound],
  [/is not a valid chart repository or cannot be reached/u, SourceAccessibleCondition.repositoryUnreachable],
  [/failed to fetch \S+ : 404/u, SourceAccessibleCondition.chartNotFound],
  [/failed to fetch \S+ : /u, SourceAccessibleCondition.repositoryUnreachable],
  [/failed to perform "Fetch\w*" on source: .*(?:not found|unknown)/iu, SourceAccessibleCondition.versionNotFound],
  [
    /dial tcp|no such host|connection refused|i\/o timeout|x509: |tls: |Client\.Timeout|context deadline exceeded/u,
    SourceAccessibleCondition.repositoryUnreachable,
  ],
];

/**
 * Classifies the output of a failed pre-flight (`helm template --dry-run=server`). helm fetches before it renders,
 * so an error in helm's wording for a repository, chart or version is a source problem; anything else (a template
 * error, invalid YAML, an unknown kind, a conflict with an object the release does not own) failed to render.
 */
export function classifyPreflightFailure(output: string): PreflightFailure {
  const message = helmError(output);
  // Talking to the cluster is part of rendering against it, whatever network words its error carries.
  if (clusterProblem.test(message)) return renderFailed(message);
  const reason = sourceRules.find(([pattern]) => pattern.test(message))?.[1];
  if (reason !== undefined) return { condition: SourceAccessibleCondition.type, reason, message };
  return renderFailed(message);
}

const clusterProblem = /^(?:cluster reachability check failed|Kubernetes cluster unreachable)/u;

const renderFailed = (message: string): PreflightFailure => ({
  condition: DryRunRenderedCondition.type,
  reason: DryRunRenderedCondition.renderFailed,
  message,
});
