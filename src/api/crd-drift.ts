import { parseAllDocuments } from 'yaml';

/** The parts of a CustomResourceDefinition the comparison reads. */
export interface CrdLike {
  apiVersion?: string;
  kind?: string;
  metadata?: { name?: string };
  spec?: { versions?: { name?: string; schema?: { openAPIV3Schema?: SchemaLike } }[] };
}

export interface SchemaLike {
  type?: string;
  properties?: Record<string, SchemaLike>;
  items?: SchemaLike;
  additionalProperties?: SchemaLike | boolean;
}

/** How one of the chart's CRDs differs from the cluster's: what the chart declares that the cluster lacks. */
export interface CrdDrift {
  name: string;
  /** Absent from the cluster altogether (helm upgrade never creates it). */
  missing: boolean;
  /** Versions the chart declares and the cluster's CRD does not serve. */
  missingVersions: string[];
  /** Each schema field the chart declares and the cluster's CRD does not (a missing parent hides its children). */
  missingFields: { version: string; path: string }[];
}

/** The CustomResourceDefinitions in `helm show crds` output (comments and other kinds skipped). */
export function parseChartCrds(text: string): CrdLike[] {
  return parseAllDocuments(text)
    .filter((doc) => !('errors' in doc) || doc.errors.length === 0)
    .map((doc) => doc.toJS() as unknown)
    .filter(
      (o): o is CrdLike =>
        typeof o === 'object' &&
        o !== null &&
        (o as CrdLike).kind === 'CustomResourceDefinition' &&
        typeof (o as CrdLike).metadata?.name === 'string',
    );
}

/** Every field path a schema declares: `spec.size`, `spec.items[].name`, `spec.labels{}.value`. */
function fieldPaths(schema: SchemaLike | undefined, prefix = ''): string[] {
  if (schema === undefined) return [];
  const paths: string[] = [];
  for (const [key, child] of Object.entries(schema.properties ?? {})) {
    const path = prefix === '' ? key : `${prefix}.${key}`;
    paths.push(path, ...fieldPaths(child, path));
  }
  if (schema.items !== undefined) paths.push(...fieldPaths(schema.items, `${prefix}[]`));
  if (typeof schema.additionalProperties === 'object') {
    paths.push(...fieldPaths(schema.additionalProperties, `${prefix}{}`));
  }
  return paths;
}

/**
 * What the cluster's CRD lacks of the chart's: each version the chart declares must be there, and each field its
 * schema declares. Fields the cluster has beyond the chart's, and a cluster CRD without a schema (accepting
 * anything), are no drift: only what helm's upgrade would need and not find is reported. Undefined when nothing
 * is behind.
 */
export function crdDrift(chart: CrdLike, cluster: CrdLike | undefined): CrdDrift | undefined {
  const name = chart.metadata?.name ?? '';
  if (cluster === undefined) return { name, missing: true, missingVersions: [], missingFields: [] };
  const missingVersions: string[] = [];
  const missingFields: CrdDrift['missingFields'] = [];
  for (const version of chart.spec?.versions ?? []) {
    const versionName = version.name ?? '';
    const have = cluster.spec?.versions?.find((v) => v.name === versionName);
    if (have === undefined) {
      missingVersions.push(versionName);
      continue;
    }
    const haveSchema = have.schema?.openAPIV3Schema;
    if (haveSchema === undefined) continue;
    const known = new Set(fieldPaths(haveSchema));
    const missing = fieldPaths(version.schema?.openAPIV3Schema).filter((path) => !known.has(path));
    for (const path of missing.filter((p) => !missing.some((parent) => isBelow(p, parent)))) {
      missingFields.push({ version: versionName, path });
    }
  }
  if (missingVersions.length === 0 && missingFields.length === 0) return undefined;
  return { name, missing: false, missingVersions, missingFields };
}

const isBelow = (path: string, parent: string) =>
  path !== parent && ['.', '[', '{'].some((sep) => path.startsWith(parent + sep));

/** One line per CRD behind: "widgets.example.com: version v2 missing; v1 lacks spec.color". */
export function describeDrift(drift: CrdDrift): string {
  if (drift.missing) return `${drift.name}: not in the cluster`;
  const parts = [
    ...drift.missingVersions.map((v) => `version ${v} missing`),
    ...drift.missingFields.map((f) => `${f.version} lacks ${f.path}`),
  ];
  return `${drift.name}: ${parts.join('; ')}`;
}
