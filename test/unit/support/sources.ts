import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..', '..');

/** Every .ts file under `dir` (relative to the repository), recursively, as repository-relative paths. */
export function tsFiles(dir: string): string[] {
  return readdirSync(path.join(root, dir), { withFileTypes: true }).flatMap((entry) => {
    const rel = `${dir}/${entry.name}`;
    if (entry.isDirectory()) return tsFiles(rel);
    return entry.name.endsWith('.ts') ? [rel] : [];
  });
}

/** A repository-relative file's text. */
export function sourceText(file: string): string {
  return readFileSync(path.join(root, file), 'utf8');
}
