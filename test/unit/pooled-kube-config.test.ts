import https from 'node:https';
import { HttpMethod, RequestContext } from '@kubernetes/client-node';
import { FREE_SOCKET_MS, PooledKubeConfig } from '../../src/kube/pooled-kube-config.js';

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
