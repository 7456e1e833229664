import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:https';
import { generate } from 'selfsigned';
import type { TestChart } from './charts.js';
import { testLayout } from './stack.js';

export interface OciRegistry {
  /** e.g. oci://127.0.0.1:PORT/charts */
  base: string;
  /** Requests seen, "METHOD path", so a test can see helm pulled from here. */
  requests: string[];
  close(): Promise<void>;
}

const sha = (data: Buffer | string) => `sha256:${createHash('sha256').update(data).digest('hex')}`;

/**
 * A read-only OCI registry (the distribution API's pull side) on loopback over HTTPS, serving each chart as
 * Helm stores it: a config blob (the chart's metadata), one layer (the archive) and a manifest per version.
 */
export async function startOciRegistry(charts: TestChart[]): Promise<OciRegistry> {
  const layout = testLayout();
  const ca = { key: readFileSync(layout.caKey, 'utf8'), cert: readFileSync(layout.caCert, 'utf8') };
  const tls = await generate([{ name: 'commonName', value: 'helmflow-test-oci-registry' }], {
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
  const blobs = new Map<string, Buffer>();
  const manifests = new Map<string, { body: string; digest: string }>();
  for (const chart of charts) {
    const config = Buffer.from(JSON.stringify({ apiVersion: 'v2', name: chart.name, version: chart.version }));
    blobs.set(sha(config), config);
    blobs.set(sha(chart.archive), chart.archive);
    const body = JSON.stringify({
      schemaVersion: 2,
      mediaType: 'application/vnd.oci.image.manifest.v1+json',
      config: { mediaType: 'application/vnd.cncf.helm.config.v1+json', digest: sha(config), size: config.length },
      layers: [
        {
          mediaType: 'application/vnd.cncf.helm.chart.content.v1.tar+gzip',
          digest: sha(chart.archive),
          size: chart.archive.length,
        },
      ],
    });
    const manifest = { body, digest: sha(body) };
    manifests.set(`charts/${chart.name}:${chart.version}`, manifest);
    manifests.set(`charts/${chart.name}:${manifest.digest}`, manifest);
  }
  const requests: string[] = [];
  const server: Server = createServer({ key: tls.private, cert: tls.cert }, (req, res) => {
    const url = new URL(req.url ?? '/', 'https://localhost');
    requests.push(`${req.method ?? ''} ${url.pathname}`);
    const head = req.method === 'HEAD';
    if (url.pathname === '/v2/' || url.pathname === '/v2') {
      res.writeHead(200, { 'docker-distribution-api-version': 'registry/2.0' }).end('{}');
      return;
    }
    const manifest = /^\/v2\/(.+)\/manifests\/([^/]+)$/.exec(url.pathname);
    if (manifest) {
      const found = manifests.get(`${manifest[1] ?? ''}:${manifest[2] ?? ''}`);
      if (found === undefined) {
        res.writeHead(404, { 'content-type': 'application/json' }).end('{"errors":[{"code":"MANIFEST_UNKNOWN"}]}');
        return;
      }
      res.writeHead(200, {
        'content-type': 'application/vnd.oci.image.manifest.v1+json',
        'content-length': Buffer.byteLength(found.body),
        'docker-content-digest': found.digest,
      });
      res.end(head ? undefined : found.body);
      return;
    }
    const blob = /^\/v2\/(.+)\/blobs\/([^/]+)$/.exec(url.pathname);
    const data = blob ? blobs.get(blob[2] ?? '') : undefined;
    if (blob && data !== undefined) {
      res.writeHead(200, {
        'content-type': 'application/octet-stream',
        'content-length': data.length,
        'docker-content-digest': blob[2] ?? '',
      });
      res.end(head ? undefined : data);
      return;
    }
    res.writeHead(404, { 'content-type': 'application/json' }).end('{"errors":[{"code":"NOT_FOUND"}]}');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  const port = typeof address === 'object' && address !== null ? address.port : 0;
  return {
    base: `oci://127.0.0.1:${port}/charts`,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => {
          resolve();
        });
      }),
  };
}
