// onError 'skip': a failed sample is left out of its batch (short batch), a
// batch with nothing left is not yielded, the collate sees the indices of the
// samples it got, and the epoch's failures are kept in plan order.
import {
  type CollateContext,
  DataLoader,
  type Dataset,
  fromLoader,
  Quarantine,
  type SampleFailure,
} from '@medfusion/core';
import { describe, expect, it } from 'vitest';
import { bounded, HANG_MS } from './harness.js';

function source(bad: Set<number>, async: boolean): Dataset<number> {
  return fromLoader(10, (i) => {
    if (bad.has(i)) {
      const e = new Error(`bad ${i}`);
      if (async) return Promise.reject(e);
      throw e;
    }
    return async ? Promise.resolve(i) : i;
  });
}

async function collect(loader: DataLoader<number, { values: number[]; indices: number[] }>) {
  const out: { values: number[]; indices: number[] }[] = [];
  await bounded('skip epoch', HANG_MS, async () => {
    for await (const b of loader) out.push(b);
  });
  return out;
}

const collate = (s: readonly number[], ctx: CollateContext) => ({
  values: s.slice(),
  indices: Array.from(ctx.indices),
});

describe("onError: 'skip'", () => {
  for (const async of [false, true]) {
    it(`short batches, an empty batch is not yielded (${async ? 'async' : 'sync'} loads)`, async () => {
      const reported: SampleFailure[] = [];
      const loader = new DataLoader(source(new Set([1, 4, 5, 6, 7]), async), {
        batchSize: 4,
        onError: 'skip',
        onSampleError: (f) => reported.push(f),
        collate,
      });
      const batches = await collect(loader);
      expect(batches).toEqual([
        { values: [0, 2, 3], indices: [0, 2, 3] },
        { values: [8, 9], indices: [8, 9] },
      ]);
      expect(loader.failures.map((f) => f.index)).toEqual([1, 4, 5, 6, 7]);
      expect(loader.failures.every((f) => f.attempts === 1)).toBe(true);
      expect(loader.failures[0]?.cause).toMatchObject({ message: 'bad 1' });
      expect(reported).toEqual(loader.failures);
      expect(loader.epoch).toBe(1);
      // no quarantine for a non-retrying policy: the next epoch tries them again
      expect(loader.quarantine).toBeUndefined();
      await collect(loader);
      expect(loader.failures.map((f) => f.index)).toEqual([1, 4, 5, 6, 7]);
    });
  }

  it("with a quarantine given, 'skip' quarantines what failed: not loaded next epoch", async () => {
    const loads: number[] = [];
    const quarantine = new Quarantine();
    const loader = new DataLoader(
      fromLoader(6, async (i) => {
        loads.push(i);
        if (i === 2) throw new Error('bad 2');
        return i;
      }),
      { batchSize: 3, onError: 'skip', quarantine, collate },
    );
    await collect(loader);
    expect(quarantine.indices()).toEqual([2]);
    loads.length = 0;
    const next = await collect(loader);
    expect(next.flatMap((b) => b.values)).toEqual([0, 1, 3, 4, 5]);
    expect(loads).not.toContain(2);
    expect(loader.failures).toMatchObject([
      { index: 2, attempts: 0, cause: { code: 'QUARANTINED' } },
    ]);
  });

  it('a resumed epoch keeps its failures; a new epoch starts a fresh list', async () => {
    const loader = new DataLoader(source(new Set([0, 9]), true), {
      batchSize: 3,
      onError: 'skip',
      collate,
    });
    for await (const _ of loader) break; // first batch only
    expect(loader.failures.map((f) => f.index)).toEqual([0]);
    await collect(loader); // the rest of the same epoch
    expect(loader.failures.map((f) => f.index)).toEqual([0, 9]);
    const next = await collect(loader);
    expect(next.flatMap((b) => b.values)).toEqual([1, 2, 3, 4, 5, 6, 7, 8]);
    expect(loader.failures.map((f) => f.index)).toEqual([0, 9]);
  });

  it("'throw' (the default) fails the epoch at the first failed batch, naming the index", async () => {
    const loader = new DataLoader(source(new Set([5]), true), { batchSize: 4, collate });
    const seen: number[] = [];
    const error = await (async () => {
      for await (const b of loader) seen.push(...b.values);
    })().catch((e: unknown) => e);
    expect(seen).toEqual([0, 1, 2, 3]);
    expect(error).toMatchObject({ code: 'LOAD_FAILED', index: 5 });
    expect((error as Error).message).toContain('sample 5');
    expect(loader.failures).toEqual([{ index: 5, cause: expect.any(Error), attempts: 1 }]);
    expect(loader.state().cursor).toBe(1); // stays at the failed batch
  });
});
