import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { StackLayout } from '../devstack/layout.js';

/** Where Debian-like systems keep the host's CA bundle. */
const systemBundles = ['/etc/ssl/certs/ca-certificates.crt', '/etc/pki/tls/certs/ca-bundle.crt'];

/**
 * The node's trust store for pod processes: the host's CAs plus the stack's own CA, as a node of a cluster
 * trusts its cluster's CA. Pods get it as SSL_CERT_FILE (Go programs like helm read it). This is the node's
 * trust, not a HelmChart's: per-chart CAs (repoCA) stay unsupported.
 */
export function writeNodeTrustBundle(layout: StackLayout): string {
  const bundle = path.join(layout.stateDir, 'node-ca-bundle.pem');
  const parts = systemBundles.filter((file) => existsSync(file)).map((file) => readFileSync(file, 'utf8'));
  parts.push(readFileSync(layout.caCert, 'utf8'));
  writeFileSync(bundle, parts.join('\n'), { mode: 0o644 });
  return bundle;
}
