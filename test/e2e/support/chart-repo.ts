import { execFileSync } from 'node:child_process';
import { copyFileSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { toolPaths } from '../../../src/config/pins.js';
import type { TestChart } from './charts.js';
import { startLoopbackHttps } from './loopback-https.js';

export interface ChartRepo {
  url: string;
  /** How many times each path was fetched, so a test can see helm went to the repository. */
  hits: Map<string, number>;
  close(): Promise<void>;
}

/**
 * A Helm chart repository over HTTPS on loopback: `helm repo index` over the given charts, served with a
 * certificate signed by the stack's CA (which the native node trusts, as a node trusts its cluster's CA).
 */
export async function startChartRepo(charts: TestChart[]): Promise<ChartRepo> {
  const dir = mkdtempSync(path.join(tmpdir(), 'helmflow-chart-repo-'));
  for (const chart of charts) copyFileSync(chart.path, path.join(dir, path.basename(chart.path)));
  const hits = new Map<string, number>();
  const server = await startLoopbackHttps('helmflow-test-chart-repo', (req, res) => {
    const name = path.basename(new URL(req.url ?? '/', 'https://localhost').pathname);
    hits.set(name, (hits.get(name) ?? 0) + 1);
    try {
      res.writeHead(200).end(readFileSync(path.join(dir, name)));
    } catch {
      res.writeHead(404).end('not found');
    }
  });
  const url = `https://127.0.0.1:${server.port}`;
  const env = { ...process.env, HELM_CACHE_HOME: dir, HELM_CONFIG_HOME: dir, HELM_DATA_HOME: dir };
  execFileSync(toolPaths().helm, ['repo', 'index', dir, '--url', url], { env });
  return {
    url,
    hits,
    close: () => server.close(),
  };
}
