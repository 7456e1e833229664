import { CoreV1Api, KubeConfig } from './k8s.js';

export interface ServiceAccountCredentials {
  kubeConfig: KubeConfig;
  /** When the token runs out; renew before then. */
  expiresAt: Date;
}

/**
 * A KubeConfig that acts as a ServiceAccount: same server and CA as `base`, a token minted by the TokenRequest
 * API (short-lived, never stored in a Secret). `base` needs `create` on serviceaccounts/token.
 */
export async function serviceAccountKubeConfig(
  base: KubeConfig,
  namespace: string,
  name: string,
  expirationSeconds = 3600,
): Promise<ServiceAccountCredentials> {
  const response = await base.makeApiClient(CoreV1Api).createNamespacedServiceAccountToken({
    name,
    namespace,
    body: { spec: { audiences: [], expirationSeconds } },
  });
  const token = response.status?.token;
  if (token === undefined || token === '') throw new Error(`TokenRequest for ${namespace}/${name} returned no token`);
  return {
    kubeConfig: kubeConfigWithToken(base, token, `${namespace}-${name}`),
    expiresAt: new Date(response.status?.expirationTimestamp ?? Date.now() + expirationSeconds * 1000),
  };
}

/** `base`'s current cluster with a bearer token as the only credential. */
export function kubeConfigWithToken(base: KubeConfig, token: string, name: string): KubeConfig {
  const cluster = base.getCurrentCluster();
  if (cluster === null) throw new Error('the base kubeconfig has no current cluster');
  const kubeConfig = new KubeConfig();
  kubeConfig.loadFromOptions({
    clusters: [{ ...cluster, name }],
    users: [{ name, token }],
    contexts: [{ name, cluster: name, user: name }],
    currentContext: name,
  });
  return kubeConfig;
}
