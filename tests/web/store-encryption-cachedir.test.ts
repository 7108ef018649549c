import { createCachedDataset, fromArray, OpfsStore, storeForCacheDir } from '@medfusion/web';
import { deleteDB } from 'idb';
import { afterEach, describe, expect, it } from 'vitest';
import { contains, newKey } from './encryptionFixtures.js';

const dirs: string[] = [];
function dirName(tag: string): string {
  const d = `test-enc-cachedir-${tag}-${Math.random().toString(36).slice(2)}`;
  dirs.push(d);
  return d;
}
afterEach(async () => {
  const root = await navigator.storage.getDirectory();
  for (const d of dirs.splice(0)) {
    await root.removeEntry(d, { recursive: true }).catch(() => {});
    await deleteDB(`medfusion:${d}`);
  }
});

const word = new TextEncoder().encode('PATIENT-PIXELS');
const pixels = () => new Uint8Array(4096).map((_, i) => word[i % word.length]!);

async function allBytes(dir: string): Promise<Uint8Array[]> {
  const d = (await (
    await navigator.storage.getDirectory()
  ).getDirectoryHandle(dir)) as FileSystemDirectoryHandle & { keys(): AsyncIterable<string> };
  const out: Uint8Array[] = [];
  for await (const name of d.keys()) {
    out.push(new Uint8Array(await (await (await d.getFileHandle(name)).getFile()).arrayBuffer()));
  }
  return out;
}

describe('encryptionKey through cacheDir', () => {
  it('seals the disk tier of createCachedDataset: later visits hit, the files hold no plaintext', async () => {
    const cacheDir = dirName('ds');
    const key = await newKey();
    const samples = [{ image: pixels() }, { image: pixels() }];
    const open = () =>
      createCachedDataset(fromArray(samples), {
        cacheType: 'lru',
        cacheDir,
        fingerprint: 'scan@1',
        encryptionKey: key,
      });
    const a = open();
    for (let i = 0; i < samples.length; i++) await a.get(i);
    await a.flush();
    await a.close();
    for (const b of await allBytes(cacheDir)) expect(contains(b, word)).toBe(false);
    const b = open();
    expect((await b.get(1)).image).toEqual(pixels());
    expect(b.getCacheStats().diskHits).toBe(1);
    await b.close();
    // the store under it holds sealed records: without the key it is refused
    const plain = new OpfsStore({ dir: cacheDir });
    await expect(plain.keys()).rejects.toMatchObject({ code: 'ENCRYPTION_KEY_REQUIRED' });
    await plain.close();
  });

  it('passes the key to the IndexedDB store too, and refuses it without cacheDir', async () => {
    const cacheDir = dirName('idb');
    const key = await newKey();
    const store = storeForCacheDir(cacheDir, { backend: 'idb', encryptionKey: key });
    await store.put('scan@1/0', pixels());
    expect(await store.get('scan@1/0')).toEqual(pixels());
    await store.close?.();
    const other = storeForCacheDir(cacheDir, { backend: 'idb', encryptionKey: await newKey() });
    expect(await other.get('scan@1/0')).toBeUndefined();
    await other.close?.();
    expect(() => createCachedDataset(fromArray([1]), { encryptionKey: key })).toThrow(
      /encryptionKey applies only with cacheDir/,
    );
  });
});
