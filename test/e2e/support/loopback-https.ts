import { readFileSync } from 'node:fs';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { createServer } from 'node:https';
import { generate } from 'selfsigned';
import { testLayout } from './stack.js';

export interface LoopbackHttps {
  port: number;
  close(): Promise<void>;
}

/**
 * An HTTPS server on 127.0.0.1 with a certificate signed by the stack's CA, which the native node trusts as a
 * node trusts its cluster's CA: what the chart repository and OCI registry of the tests serve from.
 */
export async function startLoopbackHttps(
  commonName: string,
  handler: (req: IncomingMessage, res: ServerResponse) => void,
): Promise<LoopbackHttps> {
  const layout = testLayout();
  const ca = { key: readFileSync(layout.caKey, 'utf8'), cert: readFileSync(layout.caCert, 'utf8') };
  const tls = await generate([{ name: 'commonName', value: commonName }], {
    keyType: 'ec',
    curve: 'P-256',
    algorithm: 'sha256',
    ca,
    extensions: [
      { name: 'basicConstraints', cA: false },
      { name: 'extKeyUsage', serverAuth: true },
      { name: 'subjectAltName', altNames: [{ type: 7, ip: '127.0.0.1' }] },
    ],
  });
  const server = createServer({ key: tls.private, cert: tls.cert }, handler);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  return {
    port: typeof address === 'object' && address !== null ? address.port : 0,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => {
          resolve();
        });
      }),
  };
}
