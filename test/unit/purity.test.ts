import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');

/** Pure layers do no I/O and hold no clock or randomness, so they are tested fast and replay the same. */
const forbidden: [string, RegExp][] = [
  ['a Node import other than node:crypto', /from 'node:(?!crypto')[a-z_/]+'/u],
  ['a bare Node builtin import', /from '(fs|net|http|https|child_process|os|path)(\/[a-z]+)?'/u],
  ['a runtime import of the Kubernetes client (types only)', /^import (?!type )[^;]*'@kubernetes\/client-node'/mu],
  ['the clock', /\bDate\.now\(|new Date\(/u],
  ['randomness', /Math\.random\(|randomUUID\(/u],
  ['the environment', /process\.env/u],
  ['the network', /\bfetch\(/u],
];

const files = ['src/api', 'src/build'].flatMap((dir) =>
  readdirSync(path.join(root, dir))
    .filter((f) => f.endsWith('.ts'))
    .map((f) => `${dir}/${f}`),
);

describe('src/api and src/build are pure', () => {
  it('has files to check', () => {
    expect(files.length).toBeGreaterThan(20);
  });

  it.each(files)('%s', (file) => {
    const text = readFileSync(path.join(root, file), 'utf8');
    for (const [what, pattern] of forbidden) {
      expect({ file, what, found: pattern.test(text) }).toEqual({ file, what, found: false });
    }
  });
});
