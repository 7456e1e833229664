import type { V1Secret } from '@kubernetes/client-node';
import { CONFLICT_TRIES } from '../../src/kube/retry-on-conflict.js';
import { DIGEST_KEY_SECRET, readOrCreate } from '../../src/kube/digest-key.js';
import { apiError } from './support/api-error.js';

const theirs = Buffer.alloc(32, 7);

/**
 * The Secret as the apiserver would answer each call in turn: `reads` are what each read finds (undefined: absent;
 * the last one repeats), and `creates` the HTTP status each create is refused with (undefined: created).
 */
function fakeCore(reads: (V1Secret | undefined)[], creates: (number | undefined)[] = []) {
  const sent: V1Secret[] = [];
  const core = {
    readNamespacedSecret: async () => {
      const found = reads.length > 1 ? reads.shift() : reads[0];
      if (found === undefined) throw apiError(404);
      return found;
    },
    createNamespacedSecret: async ({ body }: { body: V1Secret }) => {
      sent.push(body);
      const refused = creates.shift();
      if (refused !== undefined) throw apiError(refused);
      return body;
    },
  };
  return { core, sent };
}

const keySecret = (key: Buffer): V1Secret => ({ data: { key: key.toString('base64') } });

describe('the digest key: read, or created by the first process that needs it', () => {
  it('reads an existing key and creates nothing', async () => {
    const { core, sent } = fakeCore([keySecret(theirs)]);
    await expect(readOrCreate(core, 'helmflow')).resolves.toEqual(theirs);
    expect(sent).toEqual([]);
  });

  it('creates an absent key as 32 random bytes in the Secret the others read', async () => {
    const { core, sent } = fakeCore([undefined]);
    const key = await readOrCreate(core, 'helmflow');
    expect(key).toHaveLength(32);
    expect(sent).toHaveLength(1);
    expect(sent[0]?.metadata?.name).toBe(DIGEST_KEY_SECRET);
    expect(Buffer.from(sent[0]?.data?.key ?? '', 'base64')).toEqual(key);
  });

  it("takes the other process's key when that process created it first", async () => {
    const { core, sent } = fakeCore([undefined, keySecret(theirs)], [409]);
    await expect(readOrCreate(core, 'helmflow')).resolves.toEqual(theirs);
    expect(sent).toHaveLength(1);
  });

  it('waits (undefined) when this identity may not create the key', async () => {
    const { core } = fakeCore([undefined], [403]);
    await expect(readOrCreate(core, 'helmflow')).resolves.toBeUndefined();
  });

  it('gives up after its rounds when the Secret keeps vanishing between a conflict and the next read', async () => {
    const { core, sent } = fakeCore([undefined], Array<number>(CONFLICT_TRIES + 1).fill(409));
    await expect(readOrCreate(core, 'helmflow')).rejects.toThrow(
      `Secret helmflow/${DIGEST_KEY_SECRET} kept changing; will retry`,
    );
    expect(sent).toHaveLength(CONFLICT_TRIES);
  });

  it('refuses a Secret without a key rather than making digests with an empty one', async () => {
    const { core, sent } = fakeCore([{ data: {} }]);
    await expect(readOrCreate(core, 'helmflow')).rejects.toThrow(`has no "key"; delete it to have a new key made`);
    expect(sent).toEqual([]);
  });
});
