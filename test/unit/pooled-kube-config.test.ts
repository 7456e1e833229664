import https from 'node:https';
import net from 'node:net';
import { HttpMethod, RequestContext, Watch } from '@kubernetes/client-node';
import { FREE_SOCKET_MS, PooledKubeConfig } from '../../src/kube/pooled-kube-config.js';
import { waitFor } from '../../src/lib/wait.js';

const config = (caData: string, proxyUrl?: string) => {
  const kc = new PooledKubeConfig();
  kc.loadFromOptions({
    clusters: [
      { name: 'c', server: 'https://127.0.0.1:6443', caData, skipTLSVerify: false, ...(proxyUrl ? { proxyUrl } : {}) },
    ],
    users: [{ name: 'u', token: 'not-a-secret' }],
    contexts: [{ name: 'x', cluster: 'c', user: 'u' }],
    currentContext: 'x',
  });
  return kc;
};
const agentFor = async (kc: PooledKubeConfig) => {
  const context = new RequestContext('https://127.0.0.1:6443/api/v1/namespaces', HttpMethod.GET);
  await kc.applySecurityAuthentication(context);
  return context.getAgent();
};

describe('PooledKubeConfig', () => {
  it('gives every call one keep-alive agent, where client-node would build a new one per call', async () => {
    const kc = config(Buffer.from('ca one').toString('base64'));
    const first = await agentFor(kc);
    const second = await agentFor(kc);
    expect(first).toBe(second);
    expect(first).toBeInstanceOf(https.Agent);
    expect((first as https.Agent & { keepAlive?: boolean }).keepAlive).toBe(true);
    // Idle connections are closed by the pool before the server can close them under a reuse.
    expect((first as https.Agent).options.timeout).toBe(FREE_SOCKET_MS);
    // The bearer token is a header, never part of the pooled agent.
    expect(JSON.stringify((first as https.Agent).options)).not.toContain('not-a-secret');
  });

  it('starts a new pool when the TLS identity changes, and leaves proxied clusters to client-node', async () => {
    const kc = config(Buffer.from('ca one').toString('base64'));
    const before = await agentFor(kc);
    kc.loadFromOptions({
      clusters: [
        {
          name: 'c',
          server: 'https://127.0.0.1:6443',
          caData: Buffer.from('ca two').toString('base64'),
          skipTLSVerify: false,
        },
      ],
      users: [{ name: 'u', token: 'not-a-secret' }],
      contexts: [{ name: 'x', cluster: 'c', user: 'u' }],
      currentContext: 'x',
    });
    expect(await agentFor(kc)).not.toBe(before);

    const proxied = config(Buffer.from('ca one').toString('base64'), 'http://127.0.0.1:3128');
    const a = await agentFor(proxied);
    expect(a).not.toBe(await agentFor(proxied));
  });
});

describe('PooledKubeConfig, streamed requests', () => {
  let server: net.Server | undefined;
  const sockets: net.Socket[] = [];
  afterEach(async () => {
    for (const watch of watches.splice(0)) (await watch).abort();
    for (const socket of sockets.splice(0)) socket.destroy();
    await new Promise((resolve) => server?.close(resolve));
  });

  /** A plain-HTTP "apiserver" on loopback that answers each request with `answer`, and its kubeconfig. */
  async function apiserver(answer: (socket: net.Socket) => void, responseStartMs: number) {
    server = net.createServer((socket) => {
      sockets.push(socket);
      socket.once('data', () => {
        answer(socket);
      });
    });
    await new Promise<void>((resolve) => server?.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as net.AddressInfo;
    const kc = new PooledKubeConfig(responseStartMs);
    kc.loadFromOptions({
      clusters: [{ name: 'c', server: `http://127.0.0.1:${String(port)}`, skipTLSVerify: true }],
      users: [{ name: 'u' }],
      contexts: [{ name: 'x', cluster: 'c', user: 'u' }],
      currentContext: 'x',
    });
    return kc;
  }

  const watches: Promise<AbortController>[] = [];
  const watched = (kc: PooledKubeConfig) =>
    new Promise<{ events: string[]; error: Error | null }>((resolve) => {
      const events: string[] = [];
      const watch = new Watch(kc).watch(
        '/api/v1/pods',
        {},
        (type) => {
          events.push(type);
          if (events.length === 1) resolve({ events, error: null });
        },
        (error: Error | null) => {
          resolve({ events, error });
        },
      );
      watches.push(watch);
    });

  it('fails a watch whose response never starts, so the informer restarts it instead of waiting for ever', async () => {
    const kc = await apiserver(() => undefined, 300);
    const started = Date.now();
    const { events, error } = await watched(kc);
    expect(events).toEqual([]);
    expect(error?.message).toMatch(/network timeout/u);
    expect(Date.now() - started).toBeLessThan(10_000);
  });

  it('keeps a watch whose response started, however long it then stays quiet', async () => {
    let answered: { socket: net.Socket; at: number } | undefined;
    const kc = await apiserver((socket) => {
      socket.write('HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n');
      answered = { socket, at: Date.now() };
    }, 300);
    const result = watched(kc);
    // The stream stays quiet for three times the deadline, then carries one event.
    const quiet = await waitFor('the response to start, then three deadlines to pass', () =>
      answered !== undefined && Date.now() - answered.at > 900 ? answered.socket : undefined,
    );
    const line = `${JSON.stringify({ type: 'ADDED', object: { metadata: { name: 'p' } } })}\n`;
    quiet.write(`${line.length.toString(16)}\r\n${line}\r\n`);
    const { events, error } = await result;
    expect(error).toBeNull();
    expect(events).toEqual(['ADDED']);
  });
});
