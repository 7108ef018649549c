import { flushMicrotasks, ManualClock, PrefetchDataset } from '@medfusion/core';
import { AccessPredictor } from '@medfusion/core/internal';
import { describe, expect, it } from 'vitest';
import { type Sample, ScriptedSource } from './prefetch-scripted.js';

async function read(ds: PrefetchDataset<Sample>, src: ScriptedSource, i: number) {
  let value: Sample | undefined;
  Promise.resolve(ds.get(i)).then((v) => {
    value = v;
  });
  for (;;) {
    await flushMicrotasks();
    if (value !== undefined) break;
    const pending = src.pendingIndices();
    src.resolve(pending.includes(i) ? i : pending[0]!);
  }
  expect(value.index).toBe(i);
}

describe('without a plan, upcoming reads are inferred from the access stream', () => {
  it('AccessPredictor: sequential, strided, reverse, and nothing for shuffled reads', () => {
    const p = new AccessPredictor(20);
    const out = new Int32Array(4);
    p.observe(3);
    expect(p.predict(out, 4)).toBe(4);
    expect([...out]).toEqual([4, 5, 6, 7]);
    p.observe(6);
    expect(p.predict(out, 4)).toBe(0); // one step of 3: not yet a pattern
    p.observe(9);
    expect(p.predict(out, 4)).toBe(3); // 21 would be outside [0, 20)
    expect(out.subarray(0, 3)).toEqual(new Int32Array([12, 15, 18]));
    p.reset();
    p.observe(10);
    p.observe(8);
    p.observe(6);
    expect(p.predict(out, 2)).toBe(2);
    expect(out.subarray(0, 2)).toEqual(new Int32Array([4, 2]));
    p.observe(17);
    p.observe(2);
    p.observe(11);
    expect(p.predict(out, 4)).toBe(0);
  });

  it('sequential reads prefetch the following samples', async () => {
    const src = new ScriptedSource(100);
    const ds = new PrefetchDataset(src, {
      prefetchSize: 3,
      numWorkers: 3,
      clock: new ManualClock(),
    });
    await read(ds, src, 10);
    expect(src.pendingIndices()).toEqual([11, 12, 13]);
    src.resolveAll();
    await flushMicrotasks();
    const before = src.calls.length;
    expect(ds.get(11)).not.toBeInstanceOf(Promise); // already loaded
    expect(src.calls.slice(before)).toEqual([14]);
    await ds.close();
  });

  it('strided reads prefetch along the stride', async () => {
    const src = new ScriptedSource(100);
    const ds = new PrefetchDataset(src, {
      prefetchSize: 2,
      numWorkers: 2,
      clock: new ManualClock(),
    });
    await read(ds, src, 0);
    src.resolveAll(); // the sequential guess after one read (1, 2)
    await flushMicrotasks();
    await read(ds, src, 5);
    await read(ds, src, 10);
    expect(src.pendingIndices()).toEqual([15, 20]);
    expect(ds.getCacheStats().prefetch.wasted).toBe(2); // the wrong guess 1, 2 was dropped
    await ds.close();
  });

  it('shuffled reads start no prefetch and drop the stale guesses', async () => {
    const src = new ScriptedSource(100);
    const ds = new PrefetchDataset(src, {
      prefetchSize: 4,
      numWorkers: 2,
      clock: new ManualClock(),
    });
    for (const i of [42, 7, 93, 18, 60, 3]) {
      src.resolveAll();
      await flushMicrotasks();
      await read(ds, src, i);
    }
    src.resolveAll();
    await flushMicrotasks();
    const issued = ds.getCacheStats().prefetch.issued;
    await read(ds, src, 71);
    await read(ds, src, 29);
    const stats = ds.getCacheStats();
    expect(stats.prefetch.issued).toBe(issued);
    expect(stats.prefetch.buffered + stats.prefetch.inFlight).toBe(0);
    expect(src.calls.slice(-2)).toEqual([71, 29]);
    await ds.close();
  });
});
