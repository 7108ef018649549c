// The stores' xxHash64 runs in WebAssembly, and every WebAssembly memory reserves a large piece
// of address space (V8: guard regions), of which a page gets a bounded amount. A hasher per store
// exhausted it in Chromium once about 130 store objects were alive (an app keeping its stores, a
// page of data sets): every later WebAssembly.instantiate on the page (TF.js, the DICOM codecs,
// packing's sha256) failed with "Out of memory: Cannot allocate Wasm memory". The stores of a
// thread share one hasher: many stores, open or closed, leave WebAssembly usable.
import { IdbStore } from '@medfusion/web';
import { deleteDB } from 'idb';
import { afterAll, describe, expect, it } from 'vitest';

const STORES = 250;
const names = Array.from(
  { length: STORES },
  (_, i) => `test-wasm-memory-${i}-${Math.random().toString(36).slice(2)}`,
);
afterAll(async () => {
  for (const name of names) await deleteDB(name);
});

describe('many stores and WebAssembly', () => {
  it(`${STORES} stores kept alive (half of them open) seal with xxHash64, and a new WebAssembly memory can still be made`, async () => {
    const stores: IdbStore[] = [];
    for (const [i, name] of names.entries()) {
      const store = new IdbStore({ name });
      await store.put('k', new Uint8Array([i & 0xff, 1, 2, 3]));
      expect((await store.usage()).checksumAlgorithm, `store ${i}`).toBe('xxh64');
      if (i % 2) await store.close();
      stores.push(store);
    }
    // What an app's next WebAssembly module needs: a memory of its own.
    expect(() => new WebAssembly.Memory({ initial: 1 })).not.toThrow();
    // The shared hasher still checks every store's values.
    for (const [i, store] of stores.entries()) {
      if (i % 2) continue;
      expect(await store.get('k'), `store ${i}`).toEqual(new Uint8Array([i & 0xff, 1, 2, 3]));
    }
    await Promise.all(stores.map((s) => s.close()));
  });
});
