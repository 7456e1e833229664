import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { pino } from 'pino';
import { JobWatcher } from '../../activities/job-watcher.js';
import { chartInformers } from '../../src/controller/informers.js';
import { BatchV1Api } from '../../src/kube/k8s.js';
import { PooledKubeConfig } from '../../src/kube/pooled-kube-config.js';
import { waitFor } from '../../src/lib/wait.js';

const managedFields = [{ manager: 'kubectl-client-side-apply', operation: 'Update', fieldsV1: { 'f:spec': {} } }];

function object(kind: string, name: string, resourceVersion: string) {
  return {
    apiVersion: kind === 'Job' ? 'batch/v1' : 'helm.k3sm.io/v1',
    kind,
    metadata: { name, namespace: 'ns', resourceVersion, labels: { keep: 'me' }, managedFields },
  };
}

/**
 * An apiserver of one HelmChart and one Job: each list has the object with managedFields, and each watch then
 * sends it once more, modified, and stays open.
 */
function fakeApiserver(): Promise<{ server: http.Server; url: string; close: () => Promise<void> }> {
  const open: http.ServerResponse[] = [];
  const server = http.createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://x');
    const kind = url.pathname.endsWith('/helmcharts') ? 'HelmChart' : url.pathname.endsWith('/jobs') ? 'Job' : '';
    res.setHeader('content-type', 'application/json');
    if (url.searchParams.get('watch') === null) {
      const items = kind === '' ? [] : [object(kind, 'first', '1')];
      res.end(JSON.stringify({ kind: 'List', apiVersion: 'v1', metadata: { resourceVersion: '1' }, items }));
      return;
    }
    open.push(res);
    res.flushHeaders();
    if (kind !== '') res.write(`${JSON.stringify({ type: 'MODIFIED', object: object(kind, 'first', '2') })}\n`);
    if (kind !== '') res.write(`${JSON.stringify({ type: 'ADDED', object: object(kind, 'second', '3') })}\n`);
  });
  return new Promise((resolve) => {
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as AddressInfo;
      resolve({
        server,
        url: `http://127.0.0.1:${String(port)}`,
        close: () =>
          new Promise<void>((done) => {
            for (const res of open) res.destroy();
            server.closeAllConnections();
            server.close(() => {
              done();
            });
          }),
      });
    });
  });
}

function kubeConfig(server: string): PooledKubeConfig {
  const kc = new PooledKubeConfig();
  kc.loadFromOptions({
    clusters: [{ name: 'c', server, skipTLSVerify: true }],
    users: [{ name: 'u' }],
    contexts: [{ name: 'x', cluster: 'c', user: 'u' }],
    currentContext: 'x',
  });
  return kc;
}

describe('the watch caches', () => {
  it("keep no object's managedFields, listed or watched, and the rest of it", async () => {
    const api = await fakeApiserver();
    const kc = kubeConfig(api.url);
    const log = pino({ level: 'silent' });
    const informers = chartInformers(kc, 'helm.k3sm.io', log);
    const jobs = new JobWatcher(kc, kc.makeApiClient(BatchV1Api), log);
    try {
      await Promise.all([informers.start(), jobs.start()]);
      const cached = () => [
        informers.charts.get('first', 'ns'),
        informers.charts.get('second', 'ns'),
        ...jobs.list().filter((job) => job.metadata?.name === 'first' || job.metadata?.name === 'second'),
      ];
      await waitFor(
        'both watches to have sent both objects',
        () => (cached().every((o) => o !== undefined) && cached().length === 4) || undefined,
        {
          timeoutMs: 10_000,
        },
      );
      for (const obj of cached()) {
        expect(obj).toBeDefined();
        expect(obj?.metadata?.managedFields).toBeUndefined();
        expect(obj?.metadata?.labels).toEqual({ keep: 'me' });
      }
      expect(informers.charts.get('first', 'ns')?.metadata.resourceVersion).toBe('2');
    } finally {
      await Promise.all([informers.stop(), jobs.stop()]);
      await api.close();
    }
  });
});
