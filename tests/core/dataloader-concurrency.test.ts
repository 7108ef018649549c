import { type Batch, DataLoader, fromLoader, LoadError, ManualClock } from '@medfusion/core';
import { describe, expect, it } from 'vitest';

/** A dataset whose loads finish when the clock says, in a scripted order. */
function scripted(n: number, clock: ManualClock, delay: (i: number) => number) {
  const state = { inFlight: 0, maxInFlight: 0, started: [] as number[], aborted: 0 };
  const ds = fromLoader(n, (i, signal) => {
    state.started.push(i);
    state.inFlight++;
    state.maxInFlight = Math.max(state.maxInFlight, state.inFlight);
    return new Promise<{ id: number }>((resolve, reject) => {
      const t = clock.setTimeout(() => {
        state.inFlight--;
        resolve({ id: i });
      }, delay(i));
      signal?.addEventListener('abort', () => {
        clock.clearTimeout(t);
        state.inFlight--;
        state.aborted++;
        reject(signal.reason);
      });
    });
  });
  return { ds, state };
}

describe('DataLoader concurrent reads', () => {
  it('keeps (prefetchBatches + 1) batches of gets in flight and yields in order despite out-of-order completion', async () => {
    const clock = new ManualClock();
    // later samples finish first
    const { ds, state } = scripted(24, clock, (i) => 100 - i);
    const loader = new DataLoader(ds, { batchSize: 4, prefetchBatches: 2 });
    const it = loader[Symbol.asyncIterator]();
    const first = it.next();
    await clock.advance(0);
    expect(state.started).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11]);
    await clock.advance(100);
    const b0 = await first;
    expect(Array.from((b0.value as Batch).id!.data)).toEqual([0, 1, 2, 3]);
    // taking batch 0 refilled the window by one batch
    expect(state.started.length).toBe(16);
    const ids: number[] = [0, 1, 2, 3];
    for (;;) {
      const next = it.next();
      await clock.advance(100);
      const r = await next;
      if (r.done) break;
      ids.push(...Array.from(r.value.id!.data));
    }
    expect(ids).toEqual(Array.from({ length: 24 }, (_, i) => i));
    expect(state.maxInFlight).toBe(12);
  });

  it('wraps a failed load in LoadError naming the index, at the batch that needs it, and aborts the rest', async () => {
    const clock = new ManualClock();
    const state = { aborted: 0 };
    const ds = fromLoader(20, (i, signal) => {
      if (i === 6) return Promise.reject(new Error('disk on fire'));
      return new Promise<{ id: number }>((resolve, reject) => {
        const t = clock.setTimeout(() => resolve({ id: i }), 10);
        signal?.addEventListener('abort', () => {
          clock.clearTimeout(t);
          state.aborted++;
          reject(signal.reason);
        });
      });
    });
    const loader = new DataLoader(ds, { batchSize: 4, prefetchBatches: 3 });
    const seen: number[] = [];
    const run = (async () => {
      for await (const b of loader) seen.push(...Array.from(b.id!.data));
    })();
    const caught = run.catch((e: unknown) => e);
    await clock.advance(10);
    const err = await caught;
    expect(err).toBeInstanceOf(LoadError);
    expect(err).toMatchObject({ code: 'LOAD_FAILED', index: 6 });
    expect((err as Error).message).toMatch(/sample 6 failed: Error: disk on fire/);
    expect(seen).toEqual([0, 1, 2, 3]); // batch 0 was delivered, batch 1 failed
    expect(state.aborted).toBeGreaterThan(0); // loads still in flight were aborted
    expect(loader.state()).toEqual({ seed: 0, epoch: 0, cursor: 1 });
    expect(clock.pending).toBe(0);
  });

  it('the signal option aborts a waiting loop with its reason and cancels pending loads', async () => {
    const clock = new ManualClock();
    const { ds, state } = scripted(8, clock, () => 1000);
    const ctrl = new AbortController();
    const loader = new DataLoader(ds, { batchSize: 2, signal: ctrl.signal });
    const run = (async () => {
      for await (const _ of loader) {
        /* nothing arrives */
      }
    })().catch((e: unknown) => e);
    await clock.advance(1);
    ctrl.abort(new Error('user stop'));
    expect(await run).toMatchObject({ message: 'user stop' });
    expect(state.aborted).toBe(6);
    expect(clock.pending).toBe(0);
    // a loop started after the abort fails at once
    await expect(
      (async () => {
        for await (const _ of loader) {
          /* */
        }
      })(),
    ).rejects.toThrow('user stop');
  });
});
