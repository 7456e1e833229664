import type { CoreV1Api, V1Container, V1Pod } from '@kubernetes/client-node';

async function secretValue(core: CoreV1Api, namespace: string, name: string, key: string, optional?: boolean) {
  try {
    const secret = await core.readNamespacedSecret({ name, namespace });
    const value = secret.data?.[key];
    if (value !== undefined) return Buffer.from(value, 'base64').toString('utf8');
  } catch (err) {
    if (optional !== true) throw new Error(`secret ${namespace}/${name}: ${(err as Error).message}`);
    return undefined;
  }
  if (optional === true) return undefined;
  throw new Error(`secret ${namespace}/${name} has no key ${key}`);
}

async function configMapValue(core: CoreV1Api, namespace: string, name: string, key: string, optional?: boolean) {
  try {
    const cm = await core.readNamespacedConfigMap({ name, namespace });
    const value = cm.data?.[key];
    if (value !== undefined) return value;
  } catch (err) {
    if (optional !== true) throw new Error(`configmap ${namespace}/${name}: ${(err as Error).message}`);
    return undefined;
  }
  if (optional === true) return undefined;
  throw new Error(`configmap ${namespace}/${name} has no key ${key}`);
}

function fieldValue(pod: V1Pod, fieldPath: string): string {
  switch (fieldPath) {
    case 'metadata.name':
      return pod.metadata?.name ?? '';
    case 'metadata.namespace':
      return pod.metadata?.namespace ?? '';
    case 'metadata.uid':
      return pod.metadata?.uid ?? '';
    case 'spec.nodeName':
      return pod.spec?.nodeName ?? '';
    case 'spec.serviceAccountName':
      return pod.spec?.serviceAccountName ?? '';
    case 'status.podIP':
    case 'status.hostIP':
      return '127.0.0.1';
    default:
      throw new Error(`env fieldRef ${fieldPath} is not supported by the native node`);
  }
}

/** Expands $(VAR) references the way the kubelet does; $$ escapes. */
function expand(value: string, env: Record<string, string>): string {
  return value.replace(/\$\$|\$\(([A-Za-z_][A-Za-z0-9_.-]*)\)/g, (match, name: string | undefined) => {
    if (match === '$$') return '$';
    return name !== undefined && name in env ? (env[name] ?? '') : match;
  });
}

/** The container's environment: envFrom first, then env in order, as the kubelet resolves them. */
export async function containerEnv(
  core: CoreV1Api,
  pod: V1Pod,
  container: V1Container,
): Promise<Record<string, string>> {
  const namespace = pod.metadata?.namespace ?? 'default';
  const env: Record<string, string> = {};
  for (const from of container.envFrom ?? []) {
    const prefix = from.prefix ?? '';
    if (from.secretRef !== undefined) {
      try {
        const secret = await core.readNamespacedSecret({ name: from.secretRef.name ?? '', namespace });
        for (const [k, v] of Object.entries(secret.data ?? {})) env[prefix + k] = Buffer.from(v, 'base64').toString();
      } catch (err) {
        if (from.secretRef.optional !== true) throw err;
      }
    }
    if (from.configMapRef !== undefined) {
      try {
        const cm = await core.readNamespacedConfigMap({ name: from.configMapRef.name ?? '', namespace });
        for (const [k, v] of Object.entries(cm.data ?? {})) env[prefix + k] = v;
      } catch (err) {
        if (from.configMapRef.optional !== true) throw err;
      }
    }
  }
  for (const variable of container.env ?? []) {
    const source = variable.valueFrom;
    let value: string | undefined;
    if (source === undefined) value = expand(variable.value ?? '', env);
    else if (source.secretKeyRef !== undefined) {
      const { name = '', key, optional } = source.secretKeyRef;
      value = await secretValue(core, namespace, name, key, optional);
    } else if (source.configMapKeyRef !== undefined) {
      const { name = '', key, optional } = source.configMapKeyRef;
      value = await configMapValue(core, namespace, name, key, optional);
    } else if (source.fieldRef !== undefined) value = fieldValue(pod, source.fieldRef.fieldPath);
    if (value !== undefined) env[variable.name] = value;
  }
  return env;
}

export { expand as expandEnvReferences };
