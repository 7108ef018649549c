// Quarantine kept in a PersistentStore: a later run (new loader, new
// Quarantine, same store) never fetches the samples that failed every retry;
// a broken stored list or a failing store never stops training.
import { DataLoader, MemoryStore, type PersistentStore, Quarantine } from '@medfusion/core';
import { describe, expect, it } from 'vitest';
import { bounded, faultyDataset, intact, report, type Sample } from './harness.js';

const LENGTH = 200;
const BAD = new Set([3, 50, 51, 120, 199]);

async function run(quarantine: Quarantine) {
  const src = faultyDataset({ length: LENGTH, bad: BAD });
  const loader = new DataLoader<Sample, Sample[]>(src.dataset, {
    batchSize: 16,
    shuffle: true,
    onError: { retry: { retries: 1, baseDelayMs: 0 } },
    quarantine,
    collate: (s) => s.slice(),
  });
  let delivered = 0;
  await bounded('quarantine epoch', 10_000, async () => {
    for await (const batch of loader) {
      for (const s of batch) expect(intact(s, s.index)).toBe(true);
      delivered += batch.length;
    }
  });
  return { src, loader, delivered };
}

describe('quarantine in a store', () => {
  it('a new run on the same store does not fetch quarantined samples', async ({ task }) => {
    const store = new MemoryStore();
    const key = 'reliability@1:quarantine';
    const q1 = new Quarantine({ store, key });
    const first = await run(q1);
    expect(q1.indices()).toEqual([...BAD].sort((a, b) => a - b));
    for (const i of BAD) expect(first.src.loads[i]).toBe(2); // two attempts each
    await q1.flush();
    expect(await store.has(key)).toBe(true);

    const q2 = new Quarantine({ store, key }); // a later visit
    const second = await run(q2);
    expect(q2.indices()).toEqual(q1.indices());
    for (const i of BAD) expect(second.src.loads[i]).toBe(0);
    expect(second.delivered).toBe(LENGTH - BAD.size);
    expect(second.loader.failures.map((f) => f.index).sort((a, b) => a - b)).toEqual(q1.indices());
    report(task, {
      scenario: 'quarantine',
      case: 'persisted in a store, new loader',
      figures: { quarantined: q2.size, refetchedNextVisit: 0, delivered: second.delivered },
    });
  });

  it('a corrupt stored list and a failing store do not stop training', async ({ task }) => {
    const store = new MemoryStore();
    await store.put('q', new Uint8Array([1, 2, 3])); // not a quarantine list
    const q = new Quarantine({ store, key: 'q' });
    await q.ready;
    expect(q.size).toBe(0);
    expect(String(q.lastError)).toMatch(/not one/);

    const failing: PersistentStore = Object.assign(new MemoryStore(), {
      put: () => Promise.reject(new Error('disk gone')),
    });
    const q2 = new Quarantine({ store: failing, key: 'q' });
    const { delivered } = await run(q2);
    await q2.flush();
    expect(delivered).toBe(LENGTH - BAD.size);
    expect(q2.size).toBe(BAD.size); // still quarantined in memory
    expect(String(q2.lastError)).toMatch(/disk gone/);
    report(task, {
      scenario: 'quarantine',
      case: 'corrupt list / failing store',
      figures: { delivered, quarantinedInMemory: q2.size },
    });
  });
});
