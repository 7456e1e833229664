import { describe, expect, it } from '@jest/globals';
import { connectionOptionsOf } from '../../src/app/temporal.js';
import { parseSettings } from '../e2e/support/settings.js';

// Files are "read" by name, so the mapping is checked without any on disk.
const read = (file: string) => Buffer.from(`contents of ${file}`);
const optionsFor = (env: NodeJS.ProcessEnv) => connectionOptionsOf(parseSettings([], env), read);

describe('Temporal connection options from the settings', () => {
  it.each<[string, NodeJS.ProcessEnv, unknown]>([
    ['plaintext when nothing asks for TLS', {}, { address: '127.0.0.1:7233', tls: false }],
    ['TLS with the system CAs for TEMPORAL_TLS=true alone', { TEMPORAL_TLS: 'true' }, { tls: true }],
    [
      'an API key, over TLS with the system CAs (Temporal Cloud)',
      { TEMPORAL_ADDRESS: 'ns.acct.tmprl.cloud:7233', TEMPORAL_API_KEY: 'k' },
      { address: 'ns.acct.tmprl.cloud:7233', apiKey: 'k', tls: true },
    ],
    [
      'a server name override without a client certificate',
      { TEMPORAL_TLS_SERVER_NAME: 'temporal.internal' },
      { tls: { serverNameOverride: 'temporal.internal' } },
    ],
    [
      'a private CA',
      { TEMPORAL_TLS_CA: '/ca.pem' },
      { tls: { serverRootCACertificate: Buffer.from('contents of /ca.pem') } },
    ],
    [
      'mTLS with a client certificate and its key',
      { TEMPORAL_TLS_CERT: '/c.pem', TEMPORAL_TLS_KEY: '/k.pem' },
      { tls: { clientCertPair: { crt: Buffer.from('contents of /c.pem'), key: Buffer.from('contents of /k.pem') } } },
    ],
  ])('%s', (_, env, expected) => {
    const options = optionsFor(env);
    expect(options).toEqual(expect.objectContaining(expected as object));
    if (env.TEMPORAL_API_KEY === undefined) expect(options).not.toHaveProperty('apiKey');
  });

  it.each<[string, NodeJS.ProcessEnv, RegExp]>([
    ['a certificate without its key', { TEMPORAL_TLS_CERT: '/c.pem' }, /--temporal-tls-cert is set without/],
    ['a key without its certificate', { TEMPORAL_TLS_KEY: '/k.pem' }, /--temporal-tls-key is set without/],
    [
      'an API key with TLS turned off',
      { TEMPORAL_API_KEY: 'k', TEMPORAL_TLS: 'false' },
      /--temporal-tls is false but TEMPORAL_API_KEY need TLS/,
    ],
    [
      'a CA with TLS turned off',
      { TEMPORAL_TLS_CA: '/ca.pem', TEMPORAL_TLS: 'false' },
      /--temporal-tls is false but --temporal-tls-ca/,
    ],
  ])('refuses %s instead of connecting in plaintext', (_, env, message) => {
    expect(() => optionsFor(env)).toThrow(message);
  });

  it('refuses a TEMPORAL_TLS that is neither true nor false', () => {
    expect(() => parseSettings([], { TEMPORAL_TLS: 'yes' })).toThrow(
      "option '--temporal-tls <true|false>' value 'yes' from env 'TEMPORAL_TLS' is invalid. Expected true or false.",
    );
  });

  it('never puts the API key in an error message', () => {
    let message = '';
    try {
      optionsFor({ TEMPORAL_API_KEY: 'secret-key-value', TEMPORAL_TLS: 'false' });
    } catch (err) {
      message = (err as Error).message;
    }
    expect(message).toMatch(/TEMPORAL_API_KEY/);
    expect(message).not.toContain('secret-key-value');
  });
});
