import type { CoreV1Api, V1Pod } from '@kubernetes/client-node';
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { TokenFile } from './volumes.js';

/**
 * Mints the pod's ServiceAccount token through the TokenRequest API, bound to the pod, and writes it where the
 * projected volume puts it. Returns the shortest lifetime, so the caller can refresh before it runs out.
 */
export async function writeServiceAccountTokens(core: CoreV1Api, pod: V1Pod, tokens: TokenFile[]): Promise<number> {
  let shortest = Number.POSITIVE_INFINITY;
  for (const token of tokens) {
    const response = await core.createNamespacedServiceAccountToken({
      name: pod.spec?.serviceAccountName ?? 'default',
      namespace: pod.metadata?.namespace ?? 'default',
      body: {
        spec: {
          audiences: token.audience ? [token.audience] : [],
          expirationSeconds: token.expirationSeconds,
          boundObjectRef: { apiVersion: 'v1', kind: 'Pod', name: pod.metadata?.name, uid: pod.metadata?.uid },
        },
      },
    });
    mkdirSync(path.dirname(token.file), { recursive: true });
    writeFileSync(token.file, response.status?.token ?? '', { mode: 0o600 });
    shortest = Math.min(shortest, token.expirationSeconds);
  }
  return shortest;
}
