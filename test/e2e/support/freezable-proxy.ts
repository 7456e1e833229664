import { KubeConfig } from '@kubernetes/client-node';
import net from 'node:net';

/**
 * A TCP proxy between one client and the apiserver that can be frozen: while frozen, nothing is forwarded in
 * either direction and the connections stay open, as on a half-open connection (a peer that vanished without a
 * FIN or RST). Only the client behind it hangs; every other client of the apiserver is unaffected.
 */
export interface FreezableProxy {
  port: number;
  freeze(): void;
  thaw(): void;
  close(): Promise<void>;
}

export async function startFreezableProxy(host: string, port: number): Promise<FreezableProxy> {
  let frozen = false;
  const sockets = new Set<net.Socket>();
  const track = (socket: net.Socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => socket.destroy());
    if (frozen) socket.pause();
  };
  const server = net.createServer((client) => {
    const upstream = net.connect(port, host);
    track(client);
    track(upstream);
    client.pipe(upstream);
    upstream.pipe(client);
    client.on('close', () => upstream.destroy());
    upstream.on('close', () => client.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('the proxy has no TCP port');
  return {
    port: address.port,
    freeze: () => {
      frozen = true;
      for (const socket of sockets) socket.pause();
    },
    thaw: () => {
      frozen = false;
      for (const socket of sockets) socket.resume();
    },
    close: async () => {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) =>
        server.close(() => {
          resolve();
        }),
      );
    },
  };
}

/** Where the current cluster of `kc` listens. */
export function apiServerOf(kc: KubeConfig): { host: string; port: number } {
  const cluster = kc.getCurrentCluster();
  if (cluster === null) throw new Error('the kubeconfig has no current cluster');
  const server = new URL(cluster.server);
  return { host: server.hostname, port: Number(server.port) };
}

/**
 * A copy of `kc` that reaches its cluster through the local proxy on `port`, with the same credentials. The
 * apiserver's certificate names 127.0.0.1 (src/devstack/pki.ts), so TLS verifies through the proxy unchanged.
 */
export function throughProxy(kc: KubeConfig, port: number): KubeConfig {
  const proxied = new KubeConfig();
  proxied.loadFromOptions({
    clusters: kc.clusters.map((c) => ({ ...c, server: `https://127.0.0.1:${String(port)}` })),
    users: kc.users,
    contexts: kc.contexts,
    currentContext: kc.currentContext,
  });
  return proxied;
}
