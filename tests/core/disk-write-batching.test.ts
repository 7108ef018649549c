// Disk writes go to the store in batches: loads finish one at a time, and a
// store that got each write on its own would pay a message, a file append and
// a change notice per sample (the OPFS store in the pipeline bench: 4,000
// batches of 1 in a cold epoch of 4,000). The write-behind queue holds a write
// up to `delayMs` for others to join it, and hands them over together.
import { fromLoader, ManualClock, MemoryStore, PersistentTierDataset } from '@medfusion/core';
import { describe, expect, it } from 'vitest';

/** A store that records which puts were handed over in the same task. */
class BurstStore extends MemoryStore {
  readonly bursts: number[] = [];
  private open = false;

  override put(key: string, value: Uint8Array): Promise<void> {
    if (!this.open) {
      this.open = true;
      this.bursts.push(0);
      queueMicrotask(() => {
        this.open = false;
      });
    }
    this.bursts[this.bursts.length - 1]!++;
    return super.put(key, value);
  }
}

function tier(store: MemoryStore, clock: ManualClock, delayMs?: number, maxPending = 64) {
  return new PersistentTierDataset(
    fromLoader(100, async (i) => new Float32Array(16).fill(i)),
    {
      store,
      fingerprint: 'b',
      clock,
      writeQueue: { maxPending, ...(delayMs === undefined ? {} : { delayMs }) },
    },
  );
}

describe('write-behind batches', () => {
  it('holds writes that finish 5 ms apart for 100 ms, then hands them over together', async () => {
    const store = new BurstStore();
    const clock = new ManualClock();
    const t = tier(store, clock);
    for (let i = 0; i < 10; i++) {
      await t.get(i);
      await clock.advance(5);
    }
    expect(store.bursts).toEqual([]); // 50 ms after the first: still gathering
    expect(t.getDiskStats().pendingWrites).toBe(10);
    await clock.advance(50);
    expect(store.bursts).toEqual([10]);
    await t.flush();
    expect(t.getDiskStats()).toMatchObject({ diskWrites: 10, writesDropped: 0 });
    // the next write starts a new batch, with a timer of its own
    await t.get(50);
    await clock.advance(99);
    expect(store.bursts).toEqual([10]);
    await clock.advance(1);
    expect(store.bursts).toEqual([10, 1]);
    await t.close();
  });

  it('goes at once when half the queue is taken, on flush, and with delayMs 0', async () => {
    const clock = new ManualClock();
    const half = new BurstStore();
    const t1 = tier(half, clock, undefined, 8);
    for (let i = 0; i < 4; i++) await t1.get(i);
    expect(half.bursts).toEqual([4]); // 4 of 8
    for (let i = 4; i < 6; i++) await t1.get(i);
    await t1.flush(); // no time passed: flush hands over what waits
    expect(half.bursts).toEqual([4, 2]);
    await t1.close();

    const eager = new BurstStore();
    const t2 = tier(eager, clock, 0);
    for (let i = 0; i < 3; i++) await t2.get(i);
    expect(eager.bursts).toEqual([1, 1, 1]);
    await t2.close();
  });

  it('names a bad delayMs', () => {
    expect(() => tier(new MemoryStore(), new ManualClock(), -1)).toThrow(/writeQueue\.delayMs.*-1/);
  });
});
