// OpfsStore under the store contract (tests/stores/contract.ts), plain and encrypted: in
// `npm test` on the file backend `'auto'` picks in this engine (shared sync handles: Chromium;
// exclusive ones: Firefox; the async file API: WebKit), with `npm run test:stores` on each one this
// engine has (exclusive handles in Chromium too, the async file API everywhere).
import { OpfsStore } from '@medfusion/web';
import { inject, it } from 'vitest';
import { storeContract } from '../stores/contract';
import { keyed } from '../stores/rawBytes';
import {
  type ContractOptions,
  type StoreFactory,
  sharedStoreOptions,
} from '../stores/storeFactory';
import { newKey } from './encryptionFixtures';
import { estimateShowsFreedSpace } from './estimateProbe';
import { rawFiles, records, writeAt } from './fixtures/opfsRaw';
import { probeSyncHandles } from './syncHandleProbe';

type Backend = 'auto' | 'exclusive' | 'async';

function options(
  dir: string,
  backend: Backend,
  variantKey: CryptoKey | undefined,
  o: ContractOptions,
) {
  // Segments small enough that a budget or a quota evicts some of them, not the only one.
  const bound = Math.min(
    o.maxBytes ?? Number.POSITIVE_INFINITY,
    (o.quotaBytes ?? 0) >= 20_000 ? o.quotaBytes! : Number.POSITIVE_INFINITY,
  );
  return {
    dir,
    backend,
    ...sharedStoreOptions(o, variantKey),
    ...(Number.isFinite(bound) ? { segmentBytes: Math.max(4096, Math.floor(bound / 3)) } : {}),
  };
}

/** Flip a byte in the middle of `key`'s value in its (last) record. */
async function corrupt(dir: string, key: string): Promise<void> {
  for (const [name, bytes] of await rawFiles(dir)) {
    if (!name.startsWith('segment-')) continue;
    const r = records(bytes)
      .filter((x) => x.key === key && x.dataLen > 0)
      .pop();
    if (!r) continue;
    const at = r.at + 24 + r.keyLen + (r.dataLen >> 1);
    await writeAt(dir, name, at, new Uint8Array([bytes[at]! ^ 0x40]));
    return;
  }
  throw new Error(`no record of ${key} in ${dir}`);
}

function factory(label: string, backend: Backend, variantKey: CryptoKey | undefined): StoreFactory {
  const open = (dir: string, o: ContractOptions = {}) =>
    new OpfsStore(options(dir, backend, variantKey, o));
  return {
    name: `OpfsStore (${label})${variantKey ? ' + encryption' : ''}`,
    location: (tag) => `test-contract-opfs-${tag}-${Math.random().toString(36).slice(2)}`,
    open,
    async remove(dir) {
      const root = await navigator.storage.getDirectory();
      await root.removeEntry(dir, { recursive: true }).catch(() => {});
    },
    variantKey,
    tooLarge: 'ENTRY_TOO_LARGE',
    persistence: true,
    raw: async (dir) => [...(await rawFiles(dir)).values()],
    corrupt,
    crash: {
      async crashWhileWriting(dir, keys, size) {
        const store = open(dir, { maxBytes: 64 * 2 ** 20 });
        const done = new Set<string>();
        await store.put(keys[0]!, keyed(keys[0]!, size));
        done.add(keys[0]!);
        const puts = keys.slice(1).map((k) =>
          store.put(k, keyed(k, size)).then(
            () => done.add(k),
            () => {},
          ),
        );
        await new Promise((r) => setTimeout(r, keys.length % 5));
        store.terminate(); // as a crashed tab: the worker stops mid-write
        await Promise.all(puts);
        return done;
      },
    },
    twoInstances: true,
    quota: true,
    encryption: variantKey
      ? {
          newKey,
          refusedKey: () =>
            crypto.subtle.generateKey({ name: 'AES-GCM', length: 128 }, true, [
              'encrypt',
              'decrypt',
            ]),
        }
      : { unsupported: 'the encrypted variant runs these' },
    retention: true,
    forget: true,
    spaceUsed: freedSpaceShows
      ? async () => (await navigator.storage.estimate()).usage ?? 0
      : { unsupported: "this engine's storage.estimate() does not drop when files or records go" },
    // Deleted, overwritten and dropped records are wiped in their segment as the batch that
    // drops them is written; durable by the group commit, at the latest flush() or close().
    compactionPoint: async (s) => s.flush?.(),
  };
}

const probe = await probeSyncHandles();
const freedSpaceShows = await estimateShowsFreedSpace();
const key = await newKey();
const backends: [string, Backend, string][] = [
  [
    'shared sync handles',
    'auto',
    probe.shareable ? '' : 'no shared (readwrite-unsafe) sync handles here',
  ],
  [
    'exclusive sync handles',
    'exclusive',
    probe.opens ? '' : `sync handles do not open here (${probe.error ?? 'not offered'})`,
  ],
  ['async file API', 'async', ''],
];
// 'auto' picks the first backend of the list this engine has; in `npm test` each engine runs
// that one (every backend runs in one engine), `npm run test:stores` runs them all.
const all = inject('storeMatrix') === 'all';
let picked = false;
for (const [label, backend, missing] of backends) {
  if (missing) {
    it.skip(`OpfsStore (${label}): the store contract (not in this engine: ${missing})`, () => {});
    continue;
  }
  if (picked && !all) {
    it.skip(`OpfsStore (${label}): the store contract (not here in npm test: another engine runs this backend under 'auto'; npm run test:stores runs it here)`, () => {});
    continue;
  }
  picked = true;
  storeContract(factory(label, backend, undefined));
  storeContract(factory(label, backend, key));
}
