import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { stringify } from 'yaml';

const goldenDir = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..', 'fixtures', 'golden');

/** The YAML a golden file holds: no anchors, so each file reads as the manifest kubectl would show. */
export function goldenYaml(objects: readonly unknown[]): string {
  return objects.map((o) => `---\n${stringify(o, { aliasDuplicateObjects: false, lineWidth: 0 })}`).join('');
}

/**
 * Compares objects with test/fixtures/golden/<name>.yaml. UPDATE_GOLDEN=1 rewrites the file instead, for a
 * reviewed, intended change.
 */
export function expectGolden(name: string, objects: readonly unknown[]): void {
  const file = path.join(goldenDir, `${name}.yaml`);
  const text = goldenYaml(objects);
  if (process.env.UPDATE_GOLDEN === '1') {
    mkdirSync(goldenDir, { recursive: true });
    writeFileSync(file, text);
    return;
  }
  if (!existsSync(file)) throw new Error(`missing golden file ${file}: run with UPDATE_GOLDEN=1 and review it`);
  expect(text).toBe(readFileSync(file, 'utf8'));
}
