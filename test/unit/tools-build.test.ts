import { spawnSync } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { repoRoot } from '../../src/config/pins.js';

describe('tools/build.sh', () => {
  it('fails with a clear message, naming what is missing and how to get it, when Go is absent', () => {
    const cache = mkdtempSync(path.join(tmpdir(), 'helmflow-nogo-'));
    const result = spawnSync('bash', [path.join(repoRoot, 'tools', 'build.sh')], {
      encoding: 'utf8',
      env: { ...process.env, HELMFLOW_GO: '/nonexistent/go', HELMFLOW_CACHE: cache },
    });
    expect(result.status).toBe(2);
    expect(result.stderr).toContain('the Go toolchain (go 1.26 or newer) is needed');
    expect(result.stderr).toContain('/nonexistent/go');
    expect(result.stderr).toContain('apt-get install golang-go');
  });

  it('skips every tool already built, so a warm setup costs nothing', () => {
    const result = spawnSync('bash', [path.join(repoRoot, 'tools', 'build.sh')], { encoding: 'utf8' });
    expect(result.status).toBe(0);
    for (const tool of ['helm', 'temporal', 'etcd', 'kubernetes']) expect(result.stdout).toContain(`${tool} is cached`);
  });
});
