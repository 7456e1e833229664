import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');

function tsFiles(dir: string): string[] {
  return readdirSync(path.join(root, dir), { withFileTypes: true }).flatMap((entry) => {
    const rel = `${dir}/${entry.name}`;
    if (entry.isDirectory()) return tsFiles(rel);
    return entry.name.endsWith('.ts') ? [rel] : [];
  });
}

/** The embedded stack and its native node are for development; the CLI's stack commands are their one door. */
const embedded = (file: string) => file.startsWith('src/devstack/') || file.startsWith('src/nativenode/');
const door = 'src/cli/stack-commands.ts';
const production = ['src', 'activities', 'workflows'].flatMap(tsFiles).filter((f) => !embedded(f) && f !== door);

describe('production code never imports the embedded stack', () => {
  it('has files to check', () => {
    expect(production.length).toBeGreaterThan(100);
  });

  it.each(production)('%s', (file) => {
    const text = readFileSync(path.join(root, file), 'utf8');
    const imports = [...text.matchAll(/from '([^']+)'/gu)].map((m) => m[1] ?? '');
    expect(imports.filter((i) => /\/(devstack|nativenode)\//u.test(i))).toEqual([]);
  });
});
