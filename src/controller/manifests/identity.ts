import type { KubeConfig } from '@kubernetes/client-node';
import { KubernetesObjectApi, PatchStrategy } from '../../kube/k8s.js';
import type { ApiGroup } from '../../api/group.js';
import { serviceAccountKubeConfig } from '../../kube/service-account.js';
import { MANIFEST_IDENTITY_NAME, MANIFEST_IDENTITY_NAMESPACE, manifestIdentityObjects } from './rbac.js';

/**
 * Creates or updates the identity's ServiceAccount and RBAC with `admin` (server-side apply), for the embedded
 * stack and tests; a real cluster gets the same objects from deploy/rbac.
 */
export async function ensureManifestIdentity(admin: KubeConfig, group: ApiGroup): Promise<void> {
  const api = KubernetesObjectApi.makeApiClient(admin);
  for (const object of manifestIdentityObjects(group)) {
    await api.patch(object, undefined, undefined, 'helmflow', true, PatchStrategy.ServerSideApply);
  }
}

export interface ManifestIdentityOptions {
  namespace?: string;
  name?: string;
  /** Lifetime asked of each token; it is renewed when a third of it is left. Default 3600. */
  expirationSeconds?: number;
}

/**
 * Hands out a KubeConfig acting as the manifest identity, with a TokenRequest token renewed before it expires.
 * `base` needs `create` on serviceaccounts/token for that ServiceAccount (the controller's own identity has it).
 */
export class ManifestIdentity {
  private current: { kubeConfig: KubeConfig; renewAt: number } | undefined;
  private readonly namespace: string;
  private readonly name: string;
  private readonly expirationSeconds: number;

  constructor(
    private readonly base: KubeConfig,
    options: ManifestIdentityOptions = {},
  ) {
    this.namespace = options.namespace ?? MANIFEST_IDENTITY_NAMESPACE;
    this.name = options.name ?? MANIFEST_IDENTITY_NAME;
    this.expirationSeconds = options.expirationSeconds ?? 3600;
  }

  async kubeConfig(): Promise<KubeConfig> {
    if (this.current !== undefined && Date.now() < this.current.renewAt) return this.current.kubeConfig;
    const issuedAt = Date.now();
    const { kubeConfig, expiresAt } = await serviceAccountKubeConfig(
      this.base,
      this.namespace,
      this.name,
      this.expirationSeconds,
    );
    const lifetime = expiresAt.getTime() - issuedAt;
    this.current = { kubeConfig, renewAt: issuedAt + (lifetime * 2) / 3 };
    return kubeConfig;
  }
}
