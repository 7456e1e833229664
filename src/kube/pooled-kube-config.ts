import { createHash } from 'node:crypto';
import https from 'node:https';
import type { RequestContext } from '@kubernetes/client-node';
import { KubeConfig } from './k8s.js';
import type { RequestInit } from 'node-fetch';

/**
 * A connection left unused this long is closed by the pool (Node's agent applies its timeout to free sockets
 * only): one the apiserver closed meanwhile, and that the client has not yet noticed, is then not reused. In a
 * 1,000-chart run without it, reused connections failed with "socket hang up" (each a retried activity).
 */
export const FREE_SOCKET_MS = 4_000;

/** How long a watch or log request waits for the apiserver to start its response (see applyToFetchOptions). */
export const RESPONSE_START_MS = 30_000;

/**
 * A KubeConfig whose API calls share one keep-alive HTTPS agent. client-node 1.4 builds a new agent for every
 * request, so each call opened its own TCP and TLS connection: a handshake's CPU on both ends, and several more
 * turns of an event loop that, in `helmflow run` installing hundreds of charts, is busy enough that a Lease
 * renewal made of fresh connections could take longer than its deadline. The TLS identity (CA, client
 * certificate, server name) is taken from the agent client-node built, so a kubeconfig whose files change gets a
 * new pool; bearer tokens travel in headers and are unaffected. Proxied clusters keep client-node's own agents.
 */
export class PooledKubeConfig extends KubeConfig {
  private pool: { key: string; agent: https.Agent } | undefined;

  constructor(private readonly responseStartMs = RESPONSE_START_MS) {
    super();
  }

  /**
   * The options of a streamed request (a watch, a log): client-node sets no deadline on them, so a watch whose
   * response never starts would hold an informer's start, and everything waiting on it, for as long as the
   * connection lives. With node-fetch's `timeout` the request fails after `responseStartMs` unless the response
   * has started (once it has, the stream may be quiet for ever), and the informer's error restarts it.
   */
  override async applyToFetchOptions(opts: https.RequestOptions): Promise<RequestInit> {
    const options = await super.applyToFetchOptions(opts);
    return { ...options, timeout: options.timeout ?? this.responseStartMs };
  }

  override async applySecurityAuthentication(context: RequestContext): Promise<void> {
    await super.applySecurityAuthentication(context);
    const built = context.getAgent();
    if (!(built instanceof https.Agent) || built.constructor !== https.Agent) return;
    const key = identityKey(built.options);
    if (this.pool?.key !== key) {
      this.pool?.agent.destroy();
      this.pool = { key, agent: new https.Agent({ ...built.options, keepAlive: true, timeout: FREE_SOCKET_MS }) };
    }
    context.setAgent(this.pool.agent);
  }
}

/** What makes two agents' connections interchangeable: whom they trust and who they are. */
function identityKey(options: https.AgentOptions): string {
  const { ca, cert, key, pfx, passphrase, servername, rejectUnauthorized } = options;
  const text = (value: unknown) => (Buffer.isBuffer(value) ? value.toString('base64') : value);
  const parts = [ca, cert, key, pfx, passphrase].map((value) => (Array.isArray(value) ? value.map(text) : text(value)));
  return createHash('sha256')
    .update(JSON.stringify([...parts, servername, rejectUnauthorized]))
    .digest('hex');
}
