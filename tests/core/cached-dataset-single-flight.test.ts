import type { Dataset } from '@medfusion/core';
import { CachedDataset, flushMicrotasks } from '@medfusion/core';
import { describe, expect, it } from 'vitest';

/** A dataset whose loads settle only when the test says so. */
function scripted<T>(length: number) {
  const pending: { index: number; resolve: (v: T) => void; reject: (e: unknown) => void }[] = [];
  const calls: number[] = [];
  const ds: Dataset<T> = {
    length,
    get(index) {
      calls.push(index);
      return new Promise<T>((resolve, reject) => pending.push({ index, resolve, reject }));
    },
  };
  return { ds, pending, calls };
}

describe('CachedDataset single-flight', () => {
  it('shares one load between concurrent gets of one index, then serves from memory', async () => {
    const { ds, pending, calls } = scripted<{ id: number }>(4);
    const cached = new CachedDataset(ds, { cacheSize: 4 });
    const waits = [cached.get(2), cached.get(2), cached.get(3), cached.get(2), cached.get(2)];
    expect(calls).toEqual([2, 3]);
    expect(cached.getCacheStats()).toMatchObject({ inFlight: 2, loads: 2, misses: 5, hits: 0 });
    const sample = { id: 2 };
    pending[0]?.resolve(sample);
    pending[1]?.resolve({ id: 3 });
    const results = await Promise.all(waits);
    expect(results[0]).toBe(sample);
    expect(results[1]).toBe(sample);
    expect(results[3]).toBe(sample);
    expect(results[4]).toBe(sample);
    expect(results[2]).toEqual({ id: 3 });
    expect(cached.get(2)).toBe(sample);
    expect(calls).toEqual([2, 3]);
    expect(cached.getCacheStats()).toMatchObject({ inFlight: 0, hits: 1, size: 2 });
  });

  it('hands a failed load error to every waiter and does not cache the failure', async () => {
    const { ds, pending, calls } = scripted<string>(2);
    const cached = new CachedDataset(ds);
    const waits = [cached.get(1), cached.get(1), cached.get(1)].map((p) =>
      Promise.resolve(p).then(
        () => 'resolved',
        (e: unknown) => e,
      ),
    );
    const failure = new Error('disk on fire');
    pending[0]?.reject(failure);
    const outcomes = await Promise.all(waits);
    expect(outcomes).toEqual([failure, failure, failure]);
    for (const o of outcomes) expect(o).toBe(failure);
    expect(cached.getCacheStats()).toMatchObject({ size: 0, inFlight: 0 });
    // The next access tries again and can succeed.
    const retry = cached.get(1);
    expect(calls).toEqual([1, 1]);
    pending[1]?.resolve('ok');
    expect(await retry).toBe('ok');
    expect(cached.get(1)).toBe('ok');
  });

  it('lets a synchronous throw of the wrapped dataset through, uncached', () => {
    let calls = 0;
    const cached = new CachedDataset<number>({
      length: 1,
      get() {
        calls++;
        throw new TypeError('bad sample');
      },
    });
    expect(() => cached.get(0)).toThrow('bad sample');
    expect(() => cached.get(0)).toThrow('bad sample');
    expect(calls).toBe(2);
    expect(cached.getCacheStats()).toMatchObject({ size: 0, misses: 2, inFlight: 0 });
  });

  it('a load that settles after clearCache is still kept (clearCache does not cancel loads)', async () => {
    const { ds, pending } = scripted<number>(1);
    const cached = new CachedDataset(ds);
    const wait = cached.get(0);
    cached.clearCache();
    pending[0]?.resolve(7);
    expect(await wait).toBe(7);
    await flushMicrotasks();
    expect(cached.get(0)).toBe(7);
  });
});
