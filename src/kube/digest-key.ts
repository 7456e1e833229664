import type { KubeConfig } from '@kubernetes/client-node';
import { CoreV1Api } from './k8s.js';
import { randomBytes } from 'node:crypto';
import { setTimeout as pause } from 'node:timers/promises';
import type { Logger } from 'pino';
import { MANAGED_BY } from '../build/labels.js';
import { errorStatus, isNotFound } from './client.js';
import { retryOnConflict } from './retry-on-conflict.js';

/** The Secret, in helmflow's namespace (the Lease's), that holds the key of every desired-state digest. */
export const DIGEST_KEY_SECRET = 'helmflow-digest-key';
const dataKey = 'key';
const retryMs = 2_000;

/**
 * The key helmflow's digests are made with. A digest covers values Secrets' data and is seen by anyone who can
 * read a HelmChart's status, its Job or its workflow's history; keyed, it cannot be used to confirm a guessed
 * secret offline. Controller and worker must share it, so it lives in the cluster: the first to need it creates
 * it (a random 32 bytes) and every other reads it. An identity that may only read it (the in-cluster controller)
 * waits for the worker to create it. The key is read once per process: deleting the Secret and restarting the
 * processes rotates it, and each chart then reinstalls once.
 */
export async function ensureDigestKey(
  kc: KubeConfig,
  namespace: string,
  log: Logger,
  stop?: AbortSignal,
): Promise<Buffer> {
  const core = kc.makeApiClient(CoreV1Api);
  const secret = `${namespace}/${DIGEST_KEY_SECRET}`;
  let waitingLogged = false;
  for (;;) {
    try {
      const key = await readOrCreate(core, namespace);
      if (key !== undefined) return key;
      if (!waitingLogged) log.warn({ secret }, 'waiting for the worker to create the digest key');
      waitingLogged = true;
    } catch (err) {
      if (err instanceof MalformedKey) throw err;
      // The apiserver not (yet) reachable: helmflow waits for it as for Temporal, rather than exiting.
      log.warn({ secret, err: (err as Error).message }, 'could not read the digest key; retrying');
    }
    if (stop?.aborted === true) throw new Error('stopped while waiting for the digest key');
    await pause(retryMs);
  }
}

class MalformedKey extends Error {}

/**
 * The key; undefined when it does not exist and this identity may not create it. A create that meets a conflict
 * (another process made the key first) reads again; should the Secret keep vanishing between the two, the rounds
 * end and ensureDigestKey's own retry takes over.
 */
export function readOrCreate(
  core: Pick<CoreV1Api, 'readNamespacedSecret' | 'createNamespacedSecret'>,
  namespace: string,
): Promise<Buffer | undefined> {
  return retryOnConflict(`Secret ${namespace}/${DIGEST_KEY_SECRET}`, () => readOrCreateOnce(core, namespace));
}

async function readOrCreateOnce(
  core: Pick<CoreV1Api, 'readNamespacedSecret' | 'createNamespacedSecret'>,
  namespace: string,
): Promise<Buffer | undefined> {
  try {
    const secret = await core.readNamespacedSecret({ name: DIGEST_KEY_SECRET, namespace });
    const encoded = secret.data?.[dataKey];
    if (encoded === undefined || encoded === '') {
      throw new MalformedKey(
        `Secret ${namespace}/${DIGEST_KEY_SECRET} has no "${dataKey}"; delete it to have a new key made`,
      );
    }
    return Buffer.from(encoded, 'base64');
  } catch (err) {
    if (!isNotFound(err)) throw err;
  }
  const key = randomBytes(32);
  try {
    await core.createNamespacedSecret({
      namespace,
      body: {
        metadata: {
          name: DIGEST_KEY_SECRET,
          labels: { 'app.kubernetes.io/managed-by': MANAGED_BY, 'app.kubernetes.io/component': 'digest-key' },
        },
        type: 'Opaque',
        data: { [dataKey]: key.toString('base64') },
      },
    });
  } catch (err) {
    if (errorStatus(err) === 403) return undefined;
    // A conflict (someone else created it first) is thrown to retryOnConflict, whose next round reads theirs.
    throw err;
  }
  return key;
}
