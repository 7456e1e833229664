import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { connect, createServer, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { testLayout } from './stack.js';

export interface StallProxy {
  /** A copy of the admin kubeconfig whose apiserver is this proxy. */
  kubeconfig: string;
  /**
   * From now on nothing is forwarded either way and new connections are accepted but never joined to the
   * apiserver: every connection stays open and silent, as on a half-open link. No RST, no FIN, no error.
   */
  stall(): void;
  close(): Promise<void>;
}

/**
 * A TCP proxy in front of the test stack's kube-apiserver (TLS passes through untouched), for a client that must
 * meet a half-open connection: a fake only of the network, every call still answered by the real apiserver until
 * `stall`.
 */
export async function startStallProxy(): Promise<StallProxy> {
  const layout = testLayout();
  const upstreamPort = layout.ports.apiserver;
  let stalled = false;
  const sockets = new Set<Socket>();
  const track = (socket: Socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => socket.destroy());
  };
  const server = createServer((inbound) => {
    track(inbound);
    if (stalled) return; // accepted, never answered
    const outbound = connect(upstreamPort, '127.0.0.1');
    track(outbound);
    // Bytes are dropped once stalled, never queued: the peer sees a connection that has simply gone quiet.
    inbound.on('data', (chunk: Buffer) => {
      if (!stalled) outbound.write(chunk);
    });
    outbound.on('data', (chunk: Buffer) => {
      if (!stalled) inbound.write(chunk);
    });
    inbound.on('close', () => {
      if (!stalled) outbound.destroy();
    });
    outbound.on('close', () => {
      if (!stalled) inbound.destroy();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  const port = typeof address === 'object' && address !== null ? address.port : 0;
  const dir = mkdtempSync(path.join(tmpdir(), 'helmflow-stall-proxy-'));
  const kubeconfig = path.join(dir, 'kubeconfig');
  const admin = readFileSync(layout.adminKubeconfig, 'utf8');
  const proxied = admin.replace(
    `server: https://127.0.0.1:${String(upstreamPort)}`,
    `server: https://127.0.0.1:${String(port)}`,
  );
  if (proxied === admin)
    throw new Error(`the admin kubeconfig does not name https://127.0.0.1:${String(upstreamPort)}`);
  writeFileSync(kubeconfig, proxied, { mode: 0o600 });
  return {
    kubeconfig,
    stall: () => {
      stalled = true;
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
