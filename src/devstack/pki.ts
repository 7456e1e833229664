import { generateKeyPairSync, randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { generate } from 'selfsigned';
import type { StackLayout } from './layout.js';
import { writeKubeconfig } from './kubeconfig.js';

const tenYears = () => new Date(Date.now() + 10 * 365 * 24 * 3600 * 1000);

/** Identities of the stack's own components, each authenticated by a static bearer token. */
export const identities = {
  admin: { user: 'helmflow-admin', groups: ['system:masters'] },
  controllerManager: { user: 'system:kube-controller-manager', groups: ['system:masters'] },
  // The native node needs to bind, run and delete any pod and mint ServiceAccount tokens: it is trusted.
  nativeNode: { user: 'system:node:helmflow-native', groups: ['system:nodes', 'system:masters'] },
} as const;

function write(file: string, content: string, mode = 0o600): void {
  writeFileSync(file, content, { mode });
}

async function signedCert(
  ca: { key: string; cert: string },
  commonName: string,
  dns: string[],
  ips: string[],
): Promise<{ cert: string; key: string }> {
  const result = await generate([{ name: 'commonName', value: commonName }], {
    keyType: 'ec',
    curve: 'P-256',
    notAfterDate: tenYears(),
    algorithm: 'sha256',
    ca,
    extensions: [
      { name: 'basicConstraints', cA: false },
      { name: 'keyUsage', digitalSignature: true, keyEncipherment: true, critical: true },
      { name: 'extKeyUsage', serverAuth: true, clientAuth: true },
      {
        name: 'subjectAltName',
        altNames: [
          ...dns.map((value) => ({ type: 2 as const, value })),
          ...ips.map((ip) => ({ type: 7 as const, ip })),
        ],
      },
    ],
  });
  return { cert: result.cert, key: result.private };
}

/**
 * Creates the stack's certificate authority, serving certificates, ServiceAccount signing keys, tokens and
 * kubeconfigs once; a restart reuses them so existing tokens and kubeconfigs stay valid.
 */
export async function ensurePki(layout: StackLayout): Promise<void> {
  mkdirSync(layout.pkiDir, { recursive: true, mode: 0o700 });
  if (!existsSync(layout.caCert)) {
    const ca = await generate([{ name: 'commonName', value: 'helmflow-embedded-ca' }], {
      keyType: 'ec',
      curve: 'P-256',
      notAfterDate: tenYears(),
      algorithm: 'sha256',
      extensions: [
        { name: 'basicConstraints', cA: true, critical: true },
        { name: 'keyUsage', keyCertSign: true, cRLSign: true, digitalSignature: true, critical: true },
      ],
    });
    write(layout.caKey, ca.private);
    write(layout.caCert, ca.cert, 0o644);
  }
  const ca = { key: readFileSync(layout.caKey, 'utf8'), cert: readFileSync(layout.caCert, 'utf8') };
  if (!existsSync(layout.apiserverCert)) {
    const dns = ['localhost', 'kubernetes', 'kubernetes.default', 'kubernetes.default.svc'];
    const serving = await signedCert(ca, 'kube-apiserver', dns, ['127.0.0.1', '10.96.0.1']);
    write(layout.apiserverKey, serving.key);
    write(layout.apiserverCert, serving.cert, 0o644);
  }
  if (!existsSync(layout.kubeletCert)) {
    const serving = await signedCert(ca, 'helmflow-native', ['localhost', 'helmflow-native'], ['127.0.0.1']);
    write(layout.kubeletKey, serving.key);
    write(layout.kubeletCert, serving.cert, 0o644);
  }
  if (!existsSync(layout.serviceAccountKey)) {
    const { privateKey, publicKey } = generateKeyPairSync('rsa', {
      modulusLength: 2048,
      publicKeyEncoding: { type: 'spki', format: 'pem' },
      privateKeyEncoding: { type: 'pkcs8', format: 'pem' },
    });
    write(layout.serviceAccountKey, privateKey);
    write(layout.serviceAccountPub, publicKey, 0o644);
  }
  if (!existsSync(layout.tokenFile)) {
    const rows: string[] = [];
    const tokens: Record<string, string> = {};
    for (const [name, who] of Object.entries(identities)) {
      const token = randomBytes(24).toString('hex');
      tokens[name] = token;
      rows.push(`${token},${who.user},${who.user},"${who.groups.join(',')}"`);
    }
    write(layout.tokenFile, rows.join('\n') + '\n');
    const server = layout.apiserverUrl;
    writeKubeconfig(layout.adminKubeconfig, { server, caFile: layout.caCert, token: tokens.admin ?? '' });
    writeKubeconfig(layout.controllerManagerKubeconfig, {
      server,
      caFile: layout.caCert,
      token: tokens.controllerManager ?? '',
    });
    writeKubeconfig(layout.nativeNodeKubeconfig, { server, caFile: layout.caCert, token: tokens.nativeNode ?? '' });
  }
}
