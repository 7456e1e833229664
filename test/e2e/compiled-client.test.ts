import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { repoRoot } from '../../src/config/pins.js';
import * as source from '../../src/kube/k8s.js';
import { helmflowCommand } from './support/helmflow-process.js';

// `npm run build` replaces the compiled src/kube/k8s.js with a bundle of what it exports (src/kube/bundle-client.ts).
// The rest of the e2e suite runs the compiled CLI, so what the bundle holds works; this says it holds all of it and
// does not load the package's index, with every Kubernetes API group's code, after all.
describe('the compiled Kubernetes client', () => {
  it('exports what src/kube/k8s.ts exports, from one file that names no module of the package', () => {
    helmflowCommand(); // throws when dist/ is missing or older than the sources
    const built = path.join(repoRoot, 'dist', 'src', 'kube', 'k8s.js');
    const listed = spawnSync(
      process.execPath,
      [
        '--input-type=module',
        '-e',
        `const m = await import(${JSON.stringify(pathToFileURL(built).href)}); console.log(JSON.stringify(Object.keys(m)));`,
      ],
      { encoding: 'utf8', env: { ...process.env, NODE_OPTIONS: '' } },
    );
    expect(listed.stderr).toBe('');
    expect((JSON.parse(listed.stdout) as string[]).sort()).toEqual(Object.keys(source).sort());
    expect(readFileSync(built, 'utf8')).not.toContain('@kubernetes/client-node');
  });
});
