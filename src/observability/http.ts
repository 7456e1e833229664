import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Registry } from 'prom-client';
import { metrics } from './metrics.js';

/**
 * The process's HTTP endpoint for operators: /metrics (Prometheus), /healthz (liveness: the event loop answers)
 * and /readyz (readiness: whatever the process sets, e.g. "connected to the apiserver and Temporal").
 */
export const DEFAULT_HEALTH_PORT = 9464;

export interface HealthServerOptions {
  /** Default 9464; 0 picks a free port. */
  port?: number;
  /** Default 127.0.0.1; 0.0.0.0 in a pod so the kubelet and Prometheus reach it. */
  host?: string;
  /** Default: the process's registry from metrics(). */
  registry?: Registry;
}

export class HealthServer {
  private ready = false;
  private notReadyReason = 'starting';
  private readonly server: Server;
  private address = '';

  private constructor(private readonly registry: Registry) {
    this.server = createServer((req, res) => void this.handle(req, res));
  }

  static async start(options: HealthServerOptions = {}): Promise<HealthServer> {
    const self = new HealthServer(options.registry ?? metrics().registry);
    const server = self.server;
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(options.port ?? DEFAULT_HEALTH_PORT, options.host ?? '127.0.0.1', () => {
        server.off('error', reject);
        resolve();
      });
    });
    const address = server.address() as AddressInfo;
    self.address = `http://${address.family === 'IPv6' ? `[${address.address}]` : address.address}:${address.port}`;
    return self;
  }

  /** Where it listens, e.g. http://127.0.0.1:9464. */
  get url(): string {
    return this.address;
  }

  get port(): number {
    return (this.server.address() as AddressInfo).port;
  }

  /** Readiness: false with a reason shown by /readyz (e.g. "temporal unreachable"). */
  setReady(ready: boolean, reason = 'not ready'): void {
    this.ready = ready;
    this.notReadyReason = reason;
  }

  get isReady(): boolean {
    return this.ready;
  }

  async close(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((resolve, reject) => {
      this.server.close((err) => {
        if (err === undefined) resolve();
        else reject(err);
      });
    });
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const registry = this.registry;
    const path = new URL(req.url ?? '/', 'http://localhost').pathname;
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      reply(res, 405, 'method not allowed\n', { allow: 'GET, HEAD' });
      return;
    }
    switch (path) {
      case '/metrics':
        try {
          reply(res, 200, await registry.metrics(), { 'content-type': registry.contentType });
        } catch (err) {
          reply(res, 500, `metrics failed: ${(err as Error).message}\n`);
        }
        return;
      case '/healthz':
      case '/livez':
        reply(res, 200, 'ok\n');
        return;
      case '/readyz':
        if (this.ready) reply(res, 200, 'ok\n');
        else reply(res, 503, `not ready: ${this.notReadyReason}\n`);
        return;
      default:
        reply(res, 404, 'not found\n');
    }
  }
}

function reply(res: ServerResponse, status: number, body: string, headers: Record<string, string> = {}): void {
  res.writeHead(status, { 'content-type': 'text/plain; charset=utf-8', ...headers });
  res.end(res.req.method === 'HEAD' ? undefined : body);
}
