import { writeFileSync } from 'node:fs';
import { stringify } from 'yaml';

export interface KubeconfigSpec {
  server: string;
  caFile: string;
  /** An inline bearer token, or… */
  token?: string;
  /** …a file the client rereads, so a rotated ServiceAccount token is picked up. */
  tokenFile?: string;
  name?: string;
}

export function renderKubeconfig(spec: KubeconfigSpec): string {
  const name = spec.name ?? 'helmflow';
  const user: Record<string, string> = {};
  if (spec.token !== undefined) user.token = spec.token;
  if (spec.tokenFile !== undefined) user.tokenFile = spec.tokenFile;
  return stringify({
    apiVersion: 'v1',
    kind: 'Config',
    clusters: [{ name, cluster: { server: spec.server, 'certificate-authority': spec.caFile } }],
    users: [{ name, user }],
    contexts: [{ name, context: { cluster: name, user: name } }],
    'current-context': name,
  });
}

export function writeKubeconfig(file: string, spec: KubeconfigSpec): void {
  writeFileSync(file, renderKubeconfig(spec), { mode: 0o600 });
}
