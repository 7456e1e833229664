/**
 * `helm.k3sm.io/depends-on: <ns>/<name>,…` on a HelmChart: its installs wait until each named HelmChart is
 * installed. An entry without a namespace names a chart in the chart's own namespace. Parsing is pure and strict:
 * a malformed entry is a clear refusal, never silently dropped.
 */
import { DNS_LABEL, matches } from './patterns.js';

export const DEPENDS_ON_ANNOTATION = 'helm.k3sm.io/depends-on';

/** A HelmChart another one waits for. */
export interface ChartKey {
  namespace: string;
  name: string;
}

/** A Kubernetes object name (RFC 1123 subdomain), as a HelmChart's name must be. */
const OBJECT_NAME = '^[a-z0-9]([-a-z0-9]*[a-z0-9])?([.][a-z0-9]([-a-z0-9]*[a-z0-9])?)*$';

export const chartKeyText = (key: ChartKey): string => `${key.namespace}/${key.name}`;

/**
 * The charts `annotations` make a chart in `namespace` depend on, deduplicated and sorted (so the same list in
 * another order is the same dependency), or the entries that cannot be chart names.
 */
export function dependsOn(
  annotations: Readonly<Record<string, string>> | undefined,
  namespace: string,
): { charts: ChartKey[] } | { invalid: string } {
  const value = annotations?.[DEPENDS_ON_ANNOTATION];
  if (value === undefined) return { charts: [] };
  const entries = value
    .split(',')
    .map((entry) => entry.trim())
    .filter((entry) => entry !== '');
  const bad: string[] = [];
  const keys = new Map<string, ChartKey>();
  for (const entry of entries) {
    const parts = entry.split('/');
    const [ns, name] = parts.length === 1 ? [namespace, parts[0] ?? ''] : [parts[0] ?? '', parts[1] ?? ''];
    if (
      parts.length > 2 ||
      !matches(DNS_LABEL, ns) ||
      ns.length > 63 ||
      !matches(OBJECT_NAME, name) ||
      name.length > 253
    ) {
      bad.push(JSON.stringify(entry));
      continue;
    }
    const key = { namespace: ns, name };
    keys.set(chartKeyText(key), key);
  }
  if (bad.length > 0) {
    return {
      invalid: `${DEPENDS_ON_ANNOTATION}: ${bad.join(', ')} ${bad.length === 1 ? 'is not a' : 'are not'} HelmChart reference${bad.length === 1 ? '' : 's'} (<namespace>/<name> or <name>, comma-separated)`,
    };
  }
  return { charts: [...keys.values()].sort((a, b) => chartKeyText(a).localeCompare(chartKeyText(b))) };
}
