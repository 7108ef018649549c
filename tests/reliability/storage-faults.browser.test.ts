// Storage faults (real Chromium, real OPFS and IndexedDB) under the disk tier
// of createCachedDataset: 100 flipped bytes, 100 torn writes, quota exhausted,
// the cache folder deleted in the middle of a run. No corrupt sample is ever
// returned and training continues.
import {
  createCachedDataset,
  DataLoader,
  type Dataset,
  decodeSample,
  encodeSample,
  type PersistentStore,
} from '@medfusion/core';
import { IdbStore, OpfsStore } from '@medfusion/web';
import { openDB } from 'idb';
import { afterEach, describe, expect, it } from 'vitest';
import { bounded, HANG_MS, intact, pixelsOf, report, type Sample, seeded } from './harness.js';

const LENGTH = 200;
const BYTES = 2048;

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c().catch(() => {});
});

function uniq(prefix: string): string {
  return `reliability-${prefix}-${Math.random().toString(36).slice(2)}`;
}

function opfsDir(prefix: string): string {
  const dir = uniq(prefix);
  cleanups.push(async () => {
    const root = await navigator.storage.getDirectory();
    await root.removeEntry(dir, { recursive: true });
  });
  return dir;
}

function idbName(prefix: string): string {
  const name = uniq(prefix);
  cleanups.push(
    () =>
      new Promise<void>((resolve) => {
        const req = indexedDB.deleteDatabase(name);
        req.onsuccess = req.onerror = req.onblocked = () => resolve();
      }),
  );
  return name;
}

/** A healthy source that counts its loads. */
function source() {
  const loads = new Uint32Array(LENGTH);
  const dataset: Dataset<Sample> = {
    length: LENGTH,
    get: async (index) => {
      loads[index]!++;
      return { index, pixels: pixelsOf(index, BYTES) };
    },
  };
  return { dataset, loads };
}

/** Load bound of the epochs that fill the disk tier (the fault epochs keep 3 s). */
const FILL_TIMEOUT_MS = 20_000;

/**
 * One epoch through memory (none) → disk (store) → source with a DataLoader.
 * Returns what was delivered; any corrupt sample fails the test.
 */
async function epoch(
  store: PersistentStore,
  opts: {
    midway?: () => Promise<void>;
    label?: string;
    /** Bound of each load (engine `loadTimeoutMs`); a load past it is skipped and reported. */
    loadTimeoutMs?: number;
  } = {},
) {
  const src = source();
  const cached = createCachedDataset(src.dataset, {
    cacheType: 'none',
    store,
    fingerprint: 'reliability@1',
    diskWriteQueue: { maxPending: LENGTH }, // every miss is written (none dropped)
    loadTimeoutMs: opts.loadTimeoutMs ?? 3000,
  });
  const loader = new DataLoader<Sample, Sample[]>(cached, {
    batchSize: 20,
    shuffle: true,
    onError: 'skip',
    collate: (s) => s.slice(),
  });
  const seen = new Uint8Array(LENGTH);
  let corrupt = 0;
  let batches = 0;
  await bounded(opts.label ?? 'storage epoch', 30_000, async () => {
    for await (const batch of loader) {
      for (const s of batch) {
        if (!intact(s, s.index)) corrupt++;
        seen[s.index]! += 1;
      }
      if (++batches === 3 && opts.midway) await opts.midway();
    }
  });
  await bounded(`${opts.label ?? 'storage epoch'}: flush`, 30_000, () => cached.flush());
  const stats = cached.getCacheStats();
  await cached.close();
  expect(corrupt).toBe(0);
  // every index delivered once, or reported: only loads that outlived the bound
  for (const f of loader.failures) {
    expect(f.cause).toMatchObject({ code: 'LOAD_TIMEOUT', index: f.index });
    seen[f.index]! += 1;
  }
  expect(seen.every((c) => c === 1)).toBe(true);
  return {
    stats,
    loads: src.loads,
    fromSource: src.loads.reduce((a, b) => a + b, 0),
    failures: loader.failures.length,
  };
}

/**
 * Every index was served once, from the disk or the source (`served` counts both), except
 * those reported past the load bound: such a load may still finish, and be counted, after
 * the loader skipped it (on a loaded machine it often does), or not.
 */
function expectAccounted(served: number, failures: number): void {
  expect(served).toBeGreaterThanOrEqual(LENGTH - failures);
  expect(served).toBeLessThanOrEqual(LENGTH);
}

async function dirHandle(dir: string) {
  const root = await navigator.storage.getDirectory();
  return root.getDirectoryHandle(dir);
}

async function segmentFiles(dir: string): Promise<FileSystemFileHandle[]> {
  const d = await dirHandle(dir);
  const out: FileSystemFileHandle[] = [];
  for await (const [name, h] of (
    d as unknown as { entries(): AsyncIterable<[string, FileSystemHandle]> }
  ).entries()) {
    if (name.startsWith('segment-') && h.kind === 'file') out.push(h as FileSystemFileHandle);
  }
  return out;
}

async function writeFile(h: FileSystemFileHandle, bytes: Uint8Array, keep = false) {
  const w = await h.createWritable({ keepExistingData: keep });
  await w.write(bytes as Uint8Array<ArrayBuffer>);
  await w.close();
}

describe('storage faults: never a corrupt sample, training continues', () => {
  it('OPFS: 100 flipped bytes in the segment files', async ({ task }) => {
    const dir = opfsDir('flip');
    const first = new OpfsStore({ dir });
    // fills the disk tier; a generous load bound so a loaded machine cannot skip samples here
    const fill = await epoch(first, { label: 'fill', loadTimeoutMs: FILL_TIMEOUT_MS });
    expect(fill.stats.disk.diskWrites).toBe(LENGTH);
    await first.close();
    const random = seeded(100);
    const files = await segmentFiles(dir);
    expect(files.length).toBeGreaterThan(0);
    for (let i = 0; i < 100; i++) {
      const h = files[Math.floor(random() * files.length)]!;
      const bytes = new Uint8Array(await (await h.getFile()).arrayBuffer());
      const at = Math.floor(random() * bytes.length);
      bytes[at] = bytes[at]! ^ (1 << Math.floor(random() * 8));
      await writeFile(h, bytes);
    }
    const store = new OpfsStore({ dir });
    const second = await epoch(store);
    const usage = await store.usage();
    await store.close();
    // damaged entries were misses served by the source; the rest came from disk
    expect(second.fromSource).toBeGreaterThan(0);
    expectAccounted(second.stats.diskHits + second.fromSource, second.failures);
    report(task, {
      scenario: 'storage faults',
      case: 'OPFS / 100 flipped bytes',
      figures: {
        diskHits: second.stats.diskHits,
        refetched: second.fromSource,
        corruptDropped: usage.corruptDropped,
        timedOut: second.failures,
        corruptReturned: 0,
      },
    });
  });

  it('OPFS: 100 torn writes (a segment cut at 100 random points)', async ({ task }) => {
    const dir = opfsDir('torn');
    const first = new OpfsStore({ dir });
    // 60 samples as the disk tier stores them (a small segment: each reopen recovers it)
    const TORN = 60;
    for (let k = 0; k < TORN; k++) {
      await first.put(`reliability@1/${k}`, encodeSample({ index: k, pixels: pixelsOf(k, BYTES) }));
    }
    await first.close();
    const [h] = await segmentFiles(dir);
    const whole = new Uint8Array(await (await h!.getFile()).arrayBuffer());
    const random = seeded(101);
    let survived = 0;
    let refetched = 0;
    for (let i = 0; i < 100; i++) {
      // the write of everything past `cut` never reached the disk
      const cut = Math.floor(random() * whole.length);
      await writeFile(h!, whole.subarray(0, cut));
      // every 10th reopen through the sync-handle worker, the others in-thread (faster)
      const store = new OpfsStore({ dir, worker: i % 10 === 0 });
      for (let k = i % 15; k < TORN; k += 15) {
        const { value: got } = await bounded('torn get', HANG_MS, () =>
          store.get(`reliability@1/${k}`),
        );
        if (got === undefined) refetched++;
        else {
          // an entry read back is whole, never torn
          expect(intact(decodeSample(got) as Sample, k)).toBe(true);
          survived++;
        }
      }
      await store.close();
    }
    // and a full epoch over the last torn segment returns only intact samples
    await writeFile(h!, whole.subarray(0, Math.floor(whole.length / 2)));
    const store = new OpfsStore({ dir });
    const last = await epoch(store);
    await store.close();
    expect(last.fromSource).toBeGreaterThan(0);
    expect(survived).toBeGreaterThan(0);
    report(task, {
      scenario: 'storage faults',
      case: 'OPFS / 100 torn writes',
      figures: {
        readsIntact: survived,
        readsMissed: refetched,
        timedOut: last.failures,
        corruptReturned: 0,
      },
    });
  }, 120_000); // 100 store reopens, ~0.25 s each

  it('IndexedDB: 100 flipped bytes and 100 torn chunk writes', async ({ task }) => {
    const name = idbName('idb');
    const first = new IdbStore({ name, chunkBytes: 1024 });
    const fill = await epoch(first, { label: 'fill', loadTimeoutMs: FILL_TIMEOUT_MS });
    expect(fill.stats.disk.diskWrites).toBe(LENGTH);
    await first.close();
    const db = await openDB(name);
    const keys = (await db.getAllKeys('data')) as IDBValidKey[];
    expect(keys.length).toBeGreaterThan(200);
    const random = seeded(102);
    for (let i = 0; i < 200; i++) {
      const key = keys[Math.floor(random() * keys.length)]!;
      const value = (await db.get('data', key)) as Uint8Array | undefined;
      if (value === undefined) continue; // that chunk was already torn away
      if (i < 100) {
        // a flipped bit
        const at = Math.floor(random() * value.length);
        value[at] = value[at]! ^ (1 << Math.floor(random() * 8));
        await db.put('data', value, key);
      } else if (i % 2 === 0) {
        // a chunk only partly written
        await db.put('data', value.slice(0, Math.floor(random() * value.length)), key);
      } else {
        // a chunk never written
        await db.delete('data', key);
      }
    }
    db.close();
    const store = new IdbStore({ name, chunkBytes: 1024 });
    const second = await epoch(store);
    const usage = await store.usage();
    await store.close();
    expect(second.fromSource).toBeGreaterThan(0);
    expectAccounted(second.stats.diskHits + second.fromSource, second.failures);
    report(task, {
      scenario: 'storage faults',
      case: 'IndexedDB / 100 flips + 100 torn chunks',
      figures: {
        diskHits: second.stats.diskHits,
        refetched: second.fromSource,
        corruptDropped: usage.corruptDropped,
        timedOut: second.failures,
        corruptReturned: 0,
      },
    });
  });

  for (const kind of ['OPFS', 'IndexedDB'] as const) {
    it(`${kind}: quota exhausted — the tier stops writing, training goes on`, async ({ task }) => {
      const quotaBytes = 100 * 1024; // a quarter of the data set
      const make = () =>
        kind === 'OPFS'
          ? new OpfsStore({ dir: opfsDir('quota'), quotaBytes })
          : new IdbStore({ name: idbName('quota'), quotaBytes });
      const store = make();
      const first = await epoch(store);
      const second = await epoch(store);
      const usage = await store.usage();
      await store.close();
      // the quota was hit: the store evicted to fit, or the tier stopped writing
      expect(usage.quotaErrors).toBeGreaterThan(0);
      if (first.stats.disk.diskDisabled) {
        expect(first.stats.disk.diskDisabledReason).toMatch(/QUOTA/);
      }
      expect(usage.bytes).toBeLessThanOrEqual(quotaBytes);
      expectAccounted(first.fromSource, first.failures);
      // what fit before the quota ran out is still served from disk
      expectAccounted(second.stats.diskHits + second.fromSource, second.failures);
      report(task, {
        scenario: 'storage faults',
        case: `${kind} / quota exhausted`,
        figures: {
          quotaErrors: usage.quotaErrors,
          diskDisabled: String(first.stats.disk.diskDisabled),
          diskHitsNextEpoch: second.stats.diskHits,
          timedOut: first.failures + second.failures,
          corruptReturned: 0,
        },
      });
    });
  }

  for (const worker of [true, false]) {
    const backend = worker ? 'sync handles in a worker' : 'async API in-thread';
    it(`OPFS (${backend}): the cache folder deleted in the middle of an epoch`, async ({
      task,
    }) => {
      const dir = opfsDir('deleted');
      const store = new OpfsStore({ dir, worker });
      await epoch(store); // fills the tier
      let deleted = 'no';
      const second = await epoch(store, {
        label: 'epoch with the folder deleted',
        midway: async () => {
          const root = await navigator.storage.getDirectory();
          await root.removeEntry(dir, { recursive: true }).then(
            () => {
              deleted = 'yes';
            },
            (e: unknown) => {
              deleted = `refused (${(e as Error).name})`;
            },
          );
        },
      });
      const third = await epoch(store, { label: 'epoch after' }); // and training goes on
      await store.close();
      // a fresh store on the same name starts from whatever is left, never bad data
      const fresh = new OpfsStore({ dir, worker });
      const fourth = await epoch(fresh, { label: 'epoch on a fresh store' });
      await fresh.close();
      report(task, {
        scenario: 'storage faults',
        case: `OPFS (${backend}) / cache folder deleted mid-epoch`,
        figures: {
          deleted,
          refetchedAfter: second.fromSource + third.fromSource,
          timedOut: second.failures + third.failures + fourth.failures,
          epochsCompleted: 4,
          fourthFromDisk: fourth.stats.diskHits,
          corruptReturned: 0,
        },
      });
      expect(['yes', 'no'].includes(deleted) || deleted.startsWith('refused')).toBe(true);
    });
  }
});
