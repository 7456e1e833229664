import type { CoreV1Api, V1KeyToPath, V1Pod, V1Volume } from '@kubernetes/client-node';
import { chmodSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { inSandbox } from './sandbox.js';

/** Where one materialised volume's files live on the host. */
export type VolumeDirs = Map<string, string>;

/** What a projected serviceAccountToken source needs refreshed while the pod runs. */
export interface TokenFile {
  file: string;
  audience: string | undefined;
  expirationSeconds: number;
}

interface Materialised {
  files: Map<string, Buffer | string>;
  tokens: { relPath: string; audience: string | undefined; expirationSeconds: number }[];
}

function selectItems(
  data: Record<string, Buffer | string>,
  items: V1KeyToPath[] | undefined,
  optional: boolean | undefined,
  what: string,
): Map<string, Buffer | string> {
  const files = new Map<string, Buffer | string>();
  if (items === undefined || items.length === 0) {
    for (const [key, value] of Object.entries(data)) files.set(key, value);
    return files;
  }
  for (const item of items) {
    const value = data[item.key];
    if (value === undefined) {
      if (optional === true) continue;
      throw new Error(`${what} has no key ${item.key}`);
    }
    files.set(item.path, value);
  }
  return files;
}

async function secretData(core: CoreV1Api, namespace: string, name: string, optional?: boolean) {
  try {
    const secret = await core.readNamespacedSecret({ name, namespace });
    const out: Record<string, Buffer> = {};
    for (const [k, v] of Object.entries(secret.data ?? {})) out[k] = Buffer.from(v, 'base64');
    return out;
  } catch (err) {
    if (optional === true) return {};
    throw new Error(`secret ${namespace}/${name} is not available: ${(err as Error).message}`);
  }
}

async function configMapData(core: CoreV1Api, namespace: string, name: string, optional?: boolean) {
  try {
    const cm = await core.readNamespacedConfigMap({ name, namespace });
    const out: Record<string, Buffer | string> = { ...(cm.data ?? {}) };
    for (const [k, v] of Object.entries(cm.binaryData ?? {})) out[k] = Buffer.from(v, 'base64');
    return out;
  } catch (err) {
    if (optional === true) return {};
    throw new Error(`configmap ${namespace}/${name} is not available: ${(err as Error).message}`);
  }
}

function downwardValue(pod: V1Pod, fieldPath: string): string {
  const meta = pod.metadata ?? {};
  if (fieldPath === 'metadata.name') return meta.name ?? '';
  if (fieldPath === 'metadata.namespace') return meta.namespace ?? '';
  if (fieldPath === 'metadata.uid') return meta.uid ?? '';
  const label = /^metadata\.labels\['(.+)'\]$/.exec(fieldPath);
  if (label?.[1] !== undefined) return meta.labels?.[label[1]] ?? '';
  const annotation = /^metadata\.annotations\['(.+)'\]$/.exec(fieldPath);
  if (annotation?.[1] !== undefined) return meta.annotations?.[annotation[1]] ?? '';
  throw new Error(`downward API field ${fieldPath} is not supported by the native node`);
}

async function materialise(core: CoreV1Api, pod: V1Pod, volume: V1Volume): Promise<Materialised | 'emptyDir'> {
  const namespace = pod.metadata?.namespace ?? 'default';
  const none: Materialised = { files: new Map(), tokens: [] };
  if (volume.emptyDir !== undefined) return 'emptyDir';
  if (volume.secret !== undefined) {
    const { secretName = '', items, optional } = volume.secret;
    const data = await secretData(core, namespace, secretName, optional);
    return { ...none, files: selectItems(data, items, optional, `secret ${secretName}`) };
  }
  if (volume.configMap !== undefined) {
    const { name = '', items, optional } = volume.configMap;
    const data = await configMapData(core, namespace, name, optional);
    return { ...none, files: selectItems(data, items, optional, `configmap ${name}`) };
  }
  if (volume.projected !== undefined) {
    const out: Materialised = { files: new Map(), tokens: [] };
    for (const source of volume.projected.sources ?? []) {
      if (source.serviceAccountToken !== undefined) {
        const { path: relPath, audience, expirationSeconds } = source.serviceAccountToken;
        out.tokens.push({ relPath, audience, expirationSeconds: expirationSeconds ?? 3600 });
      } else if (source.configMap !== undefined) {
        const { name = '', items, optional } = source.configMap;
        const data = await configMapData(core, namespace, name, optional);
        for (const [k, v] of selectItems(data, items, optional, `configmap ${name}`)) out.files.set(k, v);
      } else if (source.secret !== undefined) {
        const { name = '', items, optional } = source.secret;
        const data = await secretData(core, namespace, name, optional);
        for (const [k, v] of selectItems(data, items, optional, `secret ${name}`)) out.files.set(k, v);
      } else if (source.downwardAPI !== undefined) {
        for (const item of source.downwardAPI.items ?? []) {
          if (item.fieldRef !== undefined) out.files.set(item.path, downwardValue(pod, item.fieldRef.fieldPath));
        }
      }
    }
    return out;
  }
  throw new Error(
    `volume ${volume.name}: only secret, configMap, projected and emptyDir volumes run on the native node`,
  );
}

/**
 * Writes every volume of the pod under `<sandbox>/.volumes/<name>` and returns where each lives, plus the
 * ServiceAccount token files to (re)write. Mounting is done by the caller with symlinks at the mount paths.
 */
export async function materialiseVolumes(
  core: CoreV1Api,
  pod: V1Pod,
  sandbox: string,
): Promise<{ dirs: VolumeDirs; tokens: TokenFile[] }> {
  const dirs: VolumeDirs = new Map();
  const tokens: TokenFile[] = [];
  for (const volume of pod.spec?.volumes ?? []) {
    const dir = path.join(sandbox, '.volumes', volume.name);
    rmSync(dir, { recursive: true, force: true });
    mkdirSync(dir, { recursive: true });
    dirs.set(volume.name, dir);
    const content = await materialise(core, pod, volume);
    if (content === 'emptyDir') continue;
    for (const [rel, value] of content.files) {
      const file = inSandbox(dir, rel);
      mkdirSync(path.dirname(file), { recursive: true });
      writeFileSync(file, value, { mode: 0o644 });
    }
    for (const token of content.tokens) {
      tokens.push({
        file: inSandbox(dir, token.relPath),
        audience: token.audience,
        expirationSeconds: token.expirationSeconds,
      });
    }
    chmodSync(dir, 0o755);
  }
  return { dirs, tokens };
}
