import { sourceText, tsFiles } from './support/sources.js';

/** The embedded stack and its native node are for development; the CLI's stack commands are their one door. */
const embedded = (file: string) => file.startsWith('src/devstack/') || file.startsWith('src/nativenode/');
const door = 'src/cli/stack-commands.ts';
const production = ['src', 'activities', 'workflows'].flatMap(tsFiles).filter((f) => !embedded(f) && f !== door);

describe('production code never imports the embedded stack', () => {
  it('has files to check', () => {
    expect(production.length).toBeGreaterThan(100);
  });

  it.each(production)('%s', (file) => {
    const text = sourceText(file);
    const imports = [...text.matchAll(/from '([^']+)'/gu)].map((m) => m[1] ?? '');
    expect(imports.filter((i) => /\/(devstack|nativenode)\//u.test(i))).toEqual([]);
  });
});
