/**
 * Reads helm's release records from the cluster (helm 4's storage drivers "secret", the default, and
 * "configmap"): list by label, decode the newest. The one write is unlockPendingRelease's.
 */
import type { CoreV1Api, V1ConfigMap, V1ObjectMeta, V1Secret } from '@kubernetes/client-node';
import { gunzipSync, gzipSync } from 'node:zlib';
import { isConflict } from './client.js';
import { releaseSelector, type ReleaseRecord } from '../release/record.js';
import { isPendingStatus, unlockedRecord } from '../release/unlock.js';

export type ReleaseDriver = 'secret' | 'configmap';

/** The stored JSON of one release record: base64 of gzip (helm stored uncompressed JSON before it compressed). */
export function decodeRelease(encoded: string): ReleaseRecord {
  const bytes = Buffer.from(encoded, 'base64');
  const gzipped = bytes.length > 3 && bytes[0] === 0x1f && bytes[1] === 0x8b && bytes[2] === 0x08;
  return JSON.parse((gzipped ? gunzipSync(bytes) : bytes).toString('utf8')) as ReleaseRecord;
}

/** The inverse of decodeRelease, as helm writes it: base64 of the gzipped JSON. */
export function encodeRelease(record: ReleaseRecord): string {
  return gzipSync(Buffer.from(JSON.stringify(record), 'utf8')).toString('base64');
}

interface Stored {
  version: number;
  status: string;
  encoded: () => string | undefined;
  object: V1Secret | V1ConfigMap;
}

function storedOf(object: V1Secret | V1ConfigMap, encoded: () => string | undefined): Stored {
  const labels = object.metadata?.labels ?? {};
  return { version: Number(labels.version ?? 0), status: labels.status ?? 'unknown', encoded, object };
}

async function stored(core: CoreV1Api, namespace: string, release: string, driver: ReleaseDriver): Promise<Stored[]> {
  const labelSelector = releaseSelector(release);
  if (driver === 'configmap') {
    const list = await core.listNamespacedConfigMap({ namespace, labelSelector });
    return list.items.map((cm) => storedOf(cm, () => cm.data?.release));
  }
  const list = await core.listNamespacedSecret({ namespace, labelSelector });
  // The API carries Secret data base64-encoded; helm's own base64 is inside it.
  return list.items.map((s) =>
    storedOf(s, () => (s.data?.release === undefined ? undefined : Buffer.from(s.data.release, 'base64').toString())),
  );
}

async function storedNewestFirst(
  core: CoreV1Api,
  namespace: string,
  release: string,
  driver: ReleaseDriver,
): Promise<Stored[]> {
  return (await stored(core, namespace, release, driver)).sort((a, b) => b.version - a.version);
}

/** Whether helm has any record of the release (one list, at most one item): if so, helm will upgrade it. */
export async function releaseStored(
  core: CoreV1Api,
  namespace: string,
  release: string,
  driver: ReleaseDriver = 'secret',
): Promise<boolean> {
  const query = { namespace, labelSelector: releaseSelector(release), limit: 1 };
  const found =
    driver === 'configmap' ? await core.listNamespacedConfigMap(query) : await core.listNamespacedSecret(query);
  return found.items.length > 0;
}

/** Every stored revision of a release, newest first; [] when it was never installed (or is uninstalled). */
export async function releaseHistory(
  core: CoreV1Api,
  namespace: string,
  release: string,
  driver: ReleaseDriver = 'secret',
): Promise<ReleaseRecord[]> {
  const all = await storedNewestFirst(core, namespace, release, driver);
  return all.flatMap((s) => {
    const encoded = s.encoded();
    return encoded === undefined ? [] : [decodeRelease(encoded)];
  });
}

/** The newest revision of a release, or undefined when there is none. */
export async function latestRelease(
  core: CoreV1Api,
  namespace: string,
  release: string,
  driver: ReleaseDriver = 'secret',
): Promise<ReleaseRecord | undefined> {
  const all = await storedNewestFirst(core, namespace, release, driver);
  const newest = all[0]?.encoded();
  return newest === undefined ? undefined : decodeRelease(newest);
}

/** The newest revision's number and status from labels alone, without decoding it (a cheap drift check). */
export async function latestReleaseLabels(
  core: CoreV1Api,
  namespace: string,
  release: string,
  driver: ReleaseDriver = 'secret',
): Promise<{ revision: number; status: string } | undefined> {
  const newest = (await storedNewestFirst(core, namespace, release, driver))[0];
  return newest === undefined ? undefined : { revision: newest.version, status: newest.status };
}

/**
 * Marks the release's newest revision failed when it is pending (a helm that died mid-operation left it locked),
 * as helm itself records a failed operation, so the next helm may run. Written with the record's resourceVersion:
 * a record that moved meanwhile (a live helm) is left alone. Returns what was unlocked, or undefined.
 */
export async function unlockPendingRelease(
  core: CoreV1Api,
  namespace: string,
  release: string,
  driver: ReleaseDriver,
  jobName: string,
): Promise<{ revision: number; was: string } | undefined> {
  const newest = (await storedNewestFirst(core, namespace, release, driver))[0];
  const encoded = newest?.encoded();
  if (newest === undefined || encoded === undefined || !isPendingStatus(newest.status)) return undefined;
  const record = encodeRelease(unlockedRecord(decodeRelease(encoded), newest.status, jobName));
  const kept = newest.object.metadata;
  const name = kept?.name ?? '';
  // The stored labels (helm's owner, name, version, …), with the new status; the resourceVersion guards the write.
  const metadata: V1ObjectMeta = {
    name,
    namespace,
    resourceVersion: kept?.resourceVersion,
    labels: { ...kept?.labels, status: 'failed' },
    annotations: kept?.annotations,
  };
  try {
    if (driver === 'configmap') {
      await core.replaceNamespacedConfigMap({ name, namespace, body: { metadata, data: { release: record } } });
    } else {
      const secret = newest.object as V1Secret;
      const data = { ...secret.data, release: Buffer.from(record).toString('base64') };
      await core.replaceNamespacedSecret({ name, namespace, body: { metadata, type: secret.type, data } });
    }
  } catch (err) {
    if (isConflict(err)) return undefined;
    throw err;
  }
  return { revision: newest.version, was: newest.status };
}
