import { execFileSync } from 'node:child_process';
import { copyFileSync, mkdtempSync, readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:https';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { generate } from 'selfsigned';
import { toolPaths } from '../../../src/config/pins.js';
import type { TestChart } from './charts.js';
import { testLayout } from './stack.js';

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
  const layout = testLayout();
  const dir = mkdtempSync(path.join(tmpdir(), 'helmflow-chart-repo-'));
  for (const chart of charts) copyFileSync(chart.path, path.join(dir, path.basename(chart.path)));
  const ca = { key: readFileSync(layout.caKey, 'utf8'), cert: readFileSync(layout.caCert, 'utf8') };
  const tls = await generate([{ name: 'commonName', value: 'helmflow-test-chart-repo' }], {
    keyType: 'ec',
    curve: 'P-256',
    algorithm: 'sha256',
    ca,
    extensions: [
      { name: 'basicConstraints', cA: false },
      { name: 'extKeyUsage', serverAuth: true },
      { name: 'subjectAltName', altNames: [{ type: 7, ip: '127.0.0.1' }] },
    ],
  });
  const hits = new Map<string, number>();
  const server: Server = createServer({ key: tls.private, cert: tls.cert }, (req, res) => {
    const name = path.basename(new URL(req.url ?? '/', 'https://localhost').pathname);
    hits.set(name, (hits.get(name) ?? 0) + 1);
    try {
      res.writeHead(200).end(readFileSync(path.join(dir, name)));
    } catch {
      res.writeHead(404).end('not found');
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  const port = typeof address === 'object' && address !== null ? address.port : 0;
  const url = `https://127.0.0.1:${port}`;
  const env = { ...process.env, HELM_CACHE_HOME: dir, HELM_CONFIG_HOME: dir, HELM_DATA_HOME: dir };
  execFileSync(toolPaths().helm, ['repo', 'index', dir, '--url', url], { env });
  return {
    url,
    hits,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => {
          resolve();
        });
      }),
  };
}
