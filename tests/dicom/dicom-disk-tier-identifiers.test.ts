// What reaches disk: a DicomSource sample stored through the disk tier (OPFS and IndexedDB,
// plain and encrypted) holds no byte of the fixture's PatientName or PatientID. The fixtures
// carry PatientName "Fixture^Synthetic" and PatientID "MEDFUSION-TEST" (tests/setup/dicomFixtures.ts).
import { createCachedDataset, storeForCacheDir } from '@medfusion/web';
import { DicomSource } from '@medfusion/web/dicom';
import { deleteDB, openDB } from 'idb';
import { afterEach, describe, expect, inject, it } from 'vitest';

const { filesUrl } = inject('dicom');
const dirs: string[] = [];
afterEach(async () => {
  const root = await navigator.storage.getDirectory();
  for (const d of dirs.splice(0)) {
    await root.removeEntry(d, { recursive: true }).catch(() => {});
    await deleteDB(`medfusion:${d}`);
  }
});

const IDENTIFIERS = ['Fixture^Synthetic', 'Fixture', 'Synthetic', 'MEDFUSION-TEST'];

function find(hay: Uint8Array, word: string): boolean {
  for (const needle of [
    new TextEncoder().encode(word),
    // UTF-16 too, should a string ever be stored that way
    new Uint8Array(new Uint16Array([...word].map((c) => c.charCodeAt(0))).buffer),
  ]) {
    outer: for (let i = 0; i + needle.length <= hay.length; i++) {
      for (let j = 0; j < needle.length; j++) if (hay[i + j] !== needle[j]) continue outer;
      return true;
    }
  }
  return false;
}

/** Every byte the disk tier wrote: the OPFS directory's files, or the IndexedDB records. */
async function storedBytes(cacheDir: string, backend: 'opfs' | 'idb'): Promise<Uint8Array[]> {
  if (backend === 'idb') {
    const db = await openDB(`medfusion:${cacheDir}`);
    const data = (await db.getAll('data')) as Uint8Array[];
    const meta = await db.getAll('meta');
    const keys = await db.getAllKeys('meta');
    db.close();
    return [...data, new TextEncoder().encode(JSON.stringify({ meta, keys }))];
  }
  const d = (await (
    await navigator.storage.getDirectory()
  ).getDirectoryHandle(cacheDir)) as FileSystemDirectoryHandle & { keys(): AsyncIterable<string> };
  const out: Uint8Array[] = [];
  for await (const name of d.keys()) {
    out.push(new Uint8Array(await (await (await d.getFileHandle(name)).getFile()).arrayBuffer()));
  }
  return out;
}

describe('DicomSource through the disk tier: no identifying attribute reaches disk', () => {
  for (const backend of ['opfs', 'idb'] as const) {
    for (const encrypted of [false, true]) {
      it(`${backend}${encrypted ? ', encrypted' : ''}`, async () => {
        const cacheDir = `test-dicom-ids-${backend}-${Math.random().toString(36).slice(2)}`;
        dirs.push(cacheDir);
        const source = await DicomSource.open({
          urls: ['ct16-explicit.dcm', 'ct16-implicit.dcm', 'ct16-deflated.dcm'].map(
            (f) => `${filesUrl}${f}`,
          ),
          tags: ['PatientAge', 'PatientSex'],
        });
        const encryptionKey = encrypted
          ? await crypto.subtle.generateKey({ name: 'AES-GCM', length: 256 }, false, [
              'encrypt',
              'decrypt',
            ])
          : undefined;
        const store = storeForCacheDir(cacheDir, {
          backend,
          ...(encryptionKey ? { encryptionKey } : {}),
        });
        const ds = createCachedDataset(source, {
          cacheType: 'lru',
          store,
          ownsStore: true,
          fingerprint: 'ct@1',
        });
        for (let i = 0; i < source.length; i++) await ds.get(i);
        await ds.flush();
        expect(ds.getCacheStats().disk.diskWrites).toBe(source.length);
        await ds.close();
        const stored = await storedBytes(cacheDir, backend);
        expect(stored.reduce((n, b) => n + b.length, 0)).toBeGreaterThan(1000);
        for (const bytes of stored) {
          for (const word of IDENTIFIERS) expect(find(bytes, word), word).toBe(false);
        }
        // the search itself finds an identifier when one is there (it can fail)
        expect(find(new TextEncoder().encode('xxFixture^Synthetic'), 'Fixture^Synthetic')).toBe(
          true,
        );
      });
    }
  }
});
