// IdbStore under the store contract (tests/stores/contract.ts), plain and encrypted, in every engine.
import { IdbStore } from '@medfusion/web';
import { deleteDB, openDB } from 'idb';
import { storeContract } from '../stores/contract';
import {
  type ContractOptions,
  type StoreFactory,
  sharedStoreOptions,
} from '../stores/storeFactory';
import { newKey } from './encryptionFixtures';
import { estimateShowsFreedSpace } from './estimateProbe';

/** Every record of every object store of database `name`, as bytes (meta records as JSON). */
async function rawRecords(name: string): Promise<Uint8Array[]> {
  const db = await openDB(name);
  const names = [...db.objectStoreNames];
  if (names.length === 0) {
    // Not there: opening created it empty; remove it so the store creates its own.
    db.close();
    await deleteDB(name);
    return [];
  }
  const out: Uint8Array[] = [];
  for (const store of names) {
    for (const v of await db.getAll(store)) {
      out.push(v instanceof Uint8Array ? v : new TextEncoder().encode(JSON.stringify(v)));
    }
  }
  db.close();
  return out;
}

async function flipChunkByte(name: string, key: string): Promise<void> {
  const db = await openDB(name);
  const chunk = (await db.get('data', [key, 0])) as Uint8Array;
  chunk[chunk.length >> 1]! ^= 0x40;
  await db.put('data', chunk, [key, 0]);
  db.close();
}

function factory(encrypted: boolean, variantKey: CryptoKey | undefined): StoreFactory {
  return {
    name: `IdbStore${encrypted ? ' + encryption' : ''}`,
    location: (tag) => `test-contract-idb-${tag}-${Math.random().toString(36).slice(2)}`,
    open: (name, o: ContractOptions = {}) => {
      return new IdbStore({
        name,
        ...sharedStoreOptions(o, variantKey),
      });
    },
    remove: (name) => deleteDB(name),
    variantKey,
    tooLarge: 'ENTRY_TOO_LARGE',
    persistence: true,
    raw: rawRecords,
    corrupt: flipChunkByte,
    crash: {
      unsupported:
        'IndexedDB commits a transaction whole or not at all, and a page cannot kill its own IndexedDB mid-transaction',
    },
    twoInstances: true,
    quota: true,
    encryption: encrypted
      ? {
          newKey,
          refusedKey: () =>
            crypto.subtle.generateKey({ name: 'AES-GCM', length: 128 }, true, [
              'encrypt',
              'decrypt',
            ]),
        }
      : { unsupported: 'the encrypted variant (IdbStore + encryption) runs these' },
    retention: true,
    forget: true,
    spaceUsed: freedSpaceShows
      ? async () => (await navigator.storage.estimate()).usage ?? 0
      : { unsupported: "this engine's storage.estimate() does not drop when files or records go" },
    // Deleted and overwritten records are deleted in the same transaction.
    compactionPoint: async () => {},
  };
}

const freedSpaceShows = await estimateShowsFreedSpace();
storeContract(factory(false, undefined));
storeContract(factory(true, await newKey()));
