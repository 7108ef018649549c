// What no policy absorbs: a closed dataset ends the epoch even under 'skip';
// and what every policy absorbs: a quarantined sample is skipped (reported,
// not loaded) even under 'throw'.
import {
  ClosedError,
  createCachedDataset,
  DataLoader,
  fromLoader,
  Quarantine,
} from '@medfusion/core';
import { describe, expect, it } from 'vitest';
import { bounded, HANG_MS } from './harness.js';

describe('fatal and quarantined failures', () => {
  it("a dataset closed mid-epoch ends the epoch under 'skip' (not 200 skipped samples)", async () => {
    const cached = createCachedDataset(
      fromLoader(200, async (i) => i),
      { cacheType: 'lru', cacheSize: 10 },
    );
    const loader = new DataLoader<number, number[]>(cached, {
      batchSize: 10,
      onError: 'skip',
      collate: (s) => s.slice(),
    });
    let batches = 0;
    const { value: error } = await bounded('closed mid-epoch', HANG_MS, async () => {
      try {
        for await (const _ of loader) if (++batches === 2) await cached.close();
      } catch (e) {
        return e;
      }
      return undefined;
    });
    expect(error).toBeInstanceOf(ClosedError);
    // batches already loaded ahead (prefetchBatches 2) still arrive, then the epoch ends
    expect(batches).toBeGreaterThanOrEqual(2);
    expect(batches).toBeLessThanOrEqual(2 + 3);
    expect(loader.failures).toEqual([]);
  });

  it("a given quarantine is honoured under 'throw': skipped and reported, never loaded", async () => {
    const loads: number[] = [];
    const quarantine = new Quarantine();
    quarantine.add(4);
    const loader = new DataLoader<number, number[]>(
      fromLoader(8, async (i) => {
        loads.push(i);
        return i;
      }),
      { batchSize: 4, quarantine, collate: (s) => s.slice() },
    );
    const out: number[] = [];
    for await (const b of loader) out.push(...b);
    expect(out).toEqual([0, 1, 2, 3, 5, 6, 7]);
    expect(loads).not.toContain(4);
    expect(loader.failures).toMatchObject([
      { index: 4, attempts: 0, cause: { code: 'QUARANTINED' } },
    ]);
  });
});
