import type { V1Secret } from '@kubernetes/client-node';

/** A Secret's data as text, key by key (the API carries it base64-encoded). */
export function secretText(secret: V1Secret): Record<string, string> {
  return Object.fromEntries(
    Object.entries(secret.data ?? {}).map(([k, v]) => [k, Buffer.from(v, 'base64').toString('utf8')]),
  );
}
