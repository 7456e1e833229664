import { parseAllDocuments } from 'yaml';

/** One object a manifest file asks for, as written (server-side apply takes it whole). */
export interface ManifestObject {
  apiVersion: string;
  kind: string;
  metadata: { name: string; namespace?: string; [key: string]: unknown };
  [key: string]: unknown;
}

export class ManifestParseError extends Error {
  constructor(
    readonly file: string,
    detail: string,
  ) {
    super(`${file}: ${detail}`);
    this.name = 'ManifestParseError';
  }
}

export const MANIFEST_EXTENSIONS = ['.yaml', '.yml', '.json'] as const;

/** Whether a directory entry is a manifest: by extension, and not hidden (editors' swap and temp files are). */
export function isManifestFileName(name: string): boolean {
  return !name.startsWith('.') && MANIFEST_EXTENSIONS.some((ext) => name.toLowerCase().endsWith(ext));
}

/**
 * The objects in a manifest file: every YAML document (empty ones skipped), or the one JSON value; a `List`
 * contributes its items, as with kubectl. Any error rejects the whole file, so a half-read file never applies
 * half its objects.
 */
export function parseManifest(file: string, text: string): ManifestObject[] {
  const values: unknown[] = [];
  if (file.toLowerCase().endsWith('.json')) {
    try {
      values.push(JSON.parse(text));
    } catch (err) {
      throw new ManifestParseError(file, `invalid JSON: ${(err as Error).message}`);
    }
  } else {
    const documents = parseAllDocuments(text);
    for (const [index, doc] of documents.entries()) {
      const [error] = doc.errors;
      if (error !== undefined) throw new ManifestParseError(file, `document ${index + 1}: ${error.message}`);
      values.push(doc.toJS());
    }
  }
  const objects: ManifestObject[] = [];
  for (const [index, value] of values.entries()) {
    if (value === null || value === undefined) continue;
    const where = values.length > 1 ? `document ${index + 1}` : 'the document';
    const object = asObject(file, value, where);
    if (object.kind === 'List') {
      const items = object.items;
      if (!Array.isArray(items)) throw new ManifestParseError(file, `${where}: a List without items`);
      items.forEach((item: unknown, i) => objects.push(asObject(file, item, `${where}, item ${i + 1}`)));
    } else {
      objects.push(object);
    }
  }
  return objects;
}

function asObject(file: string, value: unknown, where: string): ManifestObject {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new ManifestParseError(file, `${where} is not a Kubernetes object`);
  }
  const record = value as Record<string, unknown>;
  for (const field of ['apiVersion', 'kind'] as const) {
    if (typeof record[field] !== 'string' || record[field] === '') {
      throw new ManifestParseError(file, `${where} has no ${field}`);
    }
  }
  const metadata = record.metadata;
  if (typeof metadata !== 'object' || metadata === null || Array.isArray(metadata)) {
    if (record.kind === 'List') return record as ManifestObject;
    throw new ManifestParseError(file, `${where} (${String(record.kind)}) has no metadata`);
  }
  const name = (metadata as Record<string, unknown>).name;
  if (typeof name !== 'string' || name === '') {
    throw new ManifestParseError(file, `${where} (${String(record.kind)}) has no metadata.name`);
  }
  return record as ManifestObject;
}
