import type { KubeConfig } from '@kubernetes/client-node';
import { CoreV1Api, KubernetesObjectApi, PatchStrategy } from '../../kube/k8s.js';
import { errorStatus, isConflict, isNotFound } from '../../kube/client.js';
import type { ManifestObject } from './parse.js';

/** The field manager of everything the auto-deploy directory applies: `kubectl get -o yaml --show-managed-fields` names it. */
export const MANIFEST_FIELD_MANAGER = 'helmflow-manifests';

export interface AppliedObject {
  apiVersion: string;
  kind: string;
  namespace?: string;
  name: string;
}

/** KubernetesObjectApi with its discovery lookup opened up, to learn whether a kind is namespaced. */
class ObjectApi extends KubernetesObjectApi {
  async scope(apiVersion: string, kind: string): Promise<'namespaced' | 'cluster'> {
    const resource = await this.resource(apiVersion, kind);
    if (resource === undefined) throw new Error(`the apiserver does not serve kind ${kind} in ${apiVersion}`);
    return resource.namespaced ? 'namespaced' : 'cluster';
  }
}

/**
 * Applies manifest objects with server-side apply (forced: the file is the source of truth for the fields it
 * sets, as in k3s). A namespaced object without a namespace goes to `defaultNamespace` (kube-system, as k3s
 * does); a missing namespace is created. A Namespace in a file is created if absent and never patched, so the
 * identity needs no right to relabel existing namespaces.
 */
export class ManifestApplier {
  private readonly objects: ObjectApi;
  private readonly core: CoreV1Api;

  constructor(
    kubeConfig: KubeConfig,
    private readonly defaultNamespace = 'kube-system',
    private readonly fieldManager = MANIFEST_FIELD_MANAGER,
  ) {
    this.objects = kubeConfig.makeApiClient(ObjectApi);
    this.core = kubeConfig.makeApiClient(CoreV1Api);
  }

  async apply(object: ManifestObject): Promise<AppliedObject> {
    if (object.apiVersion === 'v1' && object.kind === 'Namespace') {
      await this.ensureNamespace(object.metadata.name);
      return { apiVersion: 'v1', kind: 'Namespace', name: object.metadata.name };
    }
    const body = structuredClone(object);
    if ((await this.objects.scope(object.apiVersion, object.kind)) === 'namespaced') {
      body.metadata.namespace ??= this.defaultNamespace;
    }
    const namespace = body.metadata.namespace;
    try {
      await this.patch(body);
    } catch (err) {
      if (!(namespace !== undefined && isNotFound(err) && !(await this.namespaceExists(namespace)))) throw err;
      await this.ensureNamespace(namespace);
      await this.patch(body);
    }
    return {
      apiVersion: object.apiVersion,
      kind: object.kind,
      name: object.metadata.name,
      ...(namespace === undefined ? {} : { namespace }),
    };
  }

  private patch(body: ManifestObject): Promise<unknown> {
    return this.objects.patch(body, undefined, undefined, this.fieldManager, true, PatchStrategy.ServerSideApply);
  }

  private async namespaceExists(name: string): Promise<boolean> {
    try {
      await this.core.readNamespace({ name });
      return true;
    } catch (err) {
      if (isNotFound(err)) return false;
      throw err;
    }
  }

  private async ensureNamespace(name: string): Promise<void> {
    if (await this.namespaceExists(name)) return;
    try {
      await this.core.createNamespace({ body: { metadata: { name } } });
    } catch (err) {
      if (!isConflict(err)) throw err;
    }
  }
}

/** One line for a failed apply: the apiserver's own message when it sent one. */
export function describeApplyError(err: unknown): string {
  const status = errorStatus(err);
  if (typeof err === 'object' && err !== null && 'body' in err) {
    const body = err.body;
    const parsed = typeof body === 'string' ? safeJson(body) : body;
    if (typeof parsed === 'object' && parsed !== null && 'message' in parsed) {
      const message = parsed.message;
      if (typeof message === 'string') return status === undefined ? message : `${message} (HTTP ${status})`;
    }
  }
  return err instanceof Error ? err.message : String(err);
}

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}
