import { readFileSync } from 'node:fs';
import path from 'node:path';
import { repoRoot } from '../../src/config/pins.js';
import { settingSpecs } from '../../src/app/setting-specs.js';

/** The README's settings table: each row's flags (first column) and environment variables (second column). */
function readmeSettingsRows(): { flags: string[]; envs: string[] }[] {
  const readme = readFileSync(path.join(repoRoot, 'README.md'), 'utf8').split('\n');
  const header = readme.findIndex((line) => /^\| flag\s+\| environment\s+\|/u.test(line));
  if (header === -1) throw new Error('README.md has no settings table (a header row "| flag | environment |")');
  const rows = [];
  for (const line of readme.slice(header + 2)) {
    if (!line.startsWith('|')) break;
    const [flags = '', envs = ''] = line.split('|').slice(1, 3);
    const names = (cell: string) => Array.from(cell.matchAll(/`([^`]+)`/gu), (m) => m[1] ?? '');
    rows.push({ flags: names(flags), envs: names(envs) });
  }
  return rows;
}

describe("the README's settings table", () => {
  const rows = readmeSettingsRows();
  const specs = Object.values(settingSpecs);
  const flagOf = (spec: (typeof specs)[number]) => spec.flag.split(' ')[0];

  it('names every setting, with its own environment variable in the same row', () => {
    for (const spec of specs) {
      const row = rows.find((r) => r.flags.includes(flagOf(spec) ?? ''));
      expect({ flag: spec.flag, inRow: row !== undefined }).toEqual({ flag: spec.flag, inRow: true });
      expect(row?.envs).toContain(spec.env);
    }
  });

  it('names no flag or variable that is not a setting', () => {
    const flags = new Set(specs.map(flagOf));
    const envs = new Set<string>(specs.map((spec) => spec.env));
    for (const row of rows) {
      for (const flag of row.flags) expect({ flag, known: flags.has(flag) }).toEqual({ flag, known: true });
      for (const env of row.envs) expect({ env, known: envs.has(env) }).toEqual({ env, known: true });
    }
  });
});
