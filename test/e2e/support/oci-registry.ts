import { createHash } from 'node:crypto';
import type { TestChart } from './charts.js';
import { startLoopbackHttps } from './loopback-https.js';

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
  const server = await startLoopbackHttps('helmflow-test-oci-registry', (req, res) => {
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
  return {
    base: `oci://127.0.0.1:${server.port}/charts`,
    requests,
    close: () => server.close(),
  };
}
