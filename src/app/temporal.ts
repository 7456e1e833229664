import { Client, Connection, type TLSConfig } from '@temporalio/client';
import { NativeConnection } from '@temporalio/worker';
import { readFileSync } from 'node:fs';
import type { ConnectionSettings, Settings } from './settings.js';

/** What both the client's and the worker's connections are given: the same server, the same security. */
export interface TemporalConnectionOptions {
  address: string;
  /** false: plaintext; true: TLS trusting the system CAs; an object: TLS with what the settings name. */
  tls: TLSConfig | boolean;
  apiKey?: string;
}

/**
 * The settings as connection options. Pure apart from `read` (the files named by the TLS settings). An
 * incomplete or contradictory combination is an error at start, never a quiet plaintext connection: a
 * certificate without its key, a key without its certificate, or TLS turned off while a certificate, CA, server
 * name or API key asks for it (an API key is a bearer token and is never sent in plaintext).
 */
export function connectionOptionsOf(
  settings: Pick<Settings, 'temporalAddress' | 'temporalTls' | 'temporalApiKey'>,
  read: (file: string) => Buffer = readFileSync,
): TemporalConnectionOptions {
  const { enabled, cert, key, ca, serverName } = settings.temporalTls;
  const apiKey = settings.temporalApiKey;
  if (cert !== undefined && key === undefined) {
    throw new Error('--temporal-tls-cert is set without --temporal-tls-key: a client certificate needs its key');
  }
  if (key !== undefined && cert === undefined) {
    throw new Error('--temporal-tls-key is set without --temporal-tls-cert: a client key needs its certificate');
  }
  const asking = [
    cert !== undefined ? '--temporal-tls-cert' : '',
    ca !== undefined ? '--temporal-tls-ca' : '',
    serverName !== undefined ? '--temporal-tls-server-name' : '',
    apiKey !== undefined ? 'TEMPORAL_API_KEY' : '',
  ].filter((s) => s !== '');
  if (enabled === false && asking.length > 0) {
    throw new Error(`--temporal-tls is false but ${asking.join(', ')} need TLS; unset them or turn TLS on`);
  }
  const base = { address: settings.temporalAddress, ...(apiKey !== undefined ? { apiKey } : {}) };
  if (enabled !== true && asking.length === 0) return { ...base, tls: false };
  const tls: TLSConfig = {
    ...(cert !== undefined && key !== undefined ? { clientCertPair: { crt: read(cert), key: read(key) } } : {}),
    ...(ca !== undefined ? { serverRootCACertificate: read(ca) } : {}),
    ...(serverName !== undefined ? { serverNameOverride: serverName } : {}),
  };
  return { ...base, tls: Object.keys(tls).length === 0 ? true : tls };
}

/**
 * A client whose connection is made on first use, so the controller starts (and keeps watching) while Temporal
 * is down; its signals fail, are retried with backoff, and go through once Temporal is back.
 */
export function temporalClient(settings: ConnectionSettings): Client {
  const connection = Connection.lazy(connectionOptionsOf(settings));
  return new Client({ connection, namespace: settings.temporalNamespace });
}

/** The worker's connection (Rust core). */
export async function workerConnection(settings: Settings): Promise<NativeConnection> {
  return NativeConnection.connect(connectionOptionsOf(settings));
}

/** A client connection for the operator API (search attributes), which a NativeConnection does not offer. */
export async function operatorConnection(settings: Settings): Promise<Connection> {
  return Connection.connect(connectionOptionsOf(settings));
}
