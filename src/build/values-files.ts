import { stringify } from 'yaml';
import {
  readsSecret,
  type HelmChart,
  type HelmChartConfig,
  type HelmChartConfigSpec,
  type SecretData,
} from '../api/index.js';

/** Where the values Secret is mounted in the Job, relative to its working directory. */
export const VALUES_DIR = 'values';

/** One values file: its key in the values Secret (also its file name) and its text. */
export interface ValuesFile {
  key: string;
  path: string;
  content: string;
}

type Owner = 'HelmChart' | 'HelmChartConfig';
type Overlay = Pick<HelmChartConfigSpec, 'values' | 'valuesContent' | 'valuesSecrets'>;

/** Empty structured values add nothing (k3s skips them too). */
function hasValues(values: unknown): boolean {
  if (values === undefined || values === null) return false;
  return typeof values !== 'object' || Object.keys(values).length > 0;
}

function sourcesOf(owner: Owner, chartName: string, spec: Overlay, secrets: SecretData): [string, string][] {
  const out: [string, string][] = [];
  if (spec.valuesContent !== undefined && spec.valuesContent !== '')
    out.push([`${owner}-valuesContent`, spec.valuesContent]);
  if (hasValues(spec.values)) out.push([`${owner}-values`, stringify(spec.values)]);
  for (const entry of spec.valuesSecrets ?? []) {
    if (!readsSecret(chartName, entry)) continue;
    for (const key of entry.keys ?? []) {
      // Absent data means an optional (ignoreUpdates) Secret or key that is missing: skipped, as k3s's optional
      // projection does. A required one that is missing is refused by validation before anything is built.
      const content = secrets[entry.name]?.[key];
      if (content !== undefined) out.push([`${owner}-valuesSecret`, content]);
    }
  }
  return out;
}

/**
 * The values files in the order helm applies them (later wins): the HelmChart's valuesContent, values and
 * valuesSecrets (each Secret's keys in the listed order), then the HelmChartConfig's in the same order. The
 * sequence number in each name makes the order explicit on disk as well as in the command line.
 */
export function valuesFiles(chart: HelmChart, config: HelmChartConfig | undefined, secrets: SecretData): ValuesFile[] {
  const name = chart.metadata.name;
  const sources = [
    ...sourcesOf('HelmChart', name, chart.spec, secrets),
    ...sourcesOf('HelmChartConfig', name, config?.spec ?? {}, secrets),
  ];
  return sources.map(([origin, content], index) => {
    const key = `values-${String(index + 1).padStart(3, '0')}-${origin}.yaml`;
    return { key, path: `${VALUES_DIR}/${key}`, content };
  });
}
