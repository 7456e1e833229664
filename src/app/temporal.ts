import { Client, Connection, type TLSConfig } from '@temporalio/client';
import { NativeConnection } from '@temporalio/worker';
import { readFileSync } from 'node:fs';
import type { Settings } from './settings.js';

function tlsOf(settings: Settings): TLSConfig | undefined {
  const { cert, key, ca } = settings.temporalTls;
  if (cert === undefined && ca === undefined) return undefined;
  return {
    ...(cert !== undefined && key !== undefined
      ? { clientCertPair: { crt: readFileSync(cert), key: readFileSync(key) } }
      : {}),
    ...(ca !== undefined ? { serverRootCACertificate: readFileSync(ca) } : {}),
  };
}

/**
 * A client whose connection is made on first use, so the controller starts (and keeps watching) while Temporal
 * is down; its signals fail, are retried with backoff, and go through once Temporal is back.
 */
export function temporalClient(settings: Settings): Client {
  const tls = tlsOf(settings);
  const connection = Connection.lazy({ address: settings.temporalAddress, ...(tls ? { tls } : {}) });
  return new Client({ connection, namespace: settings.temporalNamespace });
}

export async function workerConnection(settings: Settings): Promise<NativeConnection> {
  const tls = tlsOf(settings);
  return NativeConnection.connect({ address: settings.temporalAddress, ...(tls ? { tls } : {}) });
}
