// The disk tier keeps a whole epoch when the page is busy: a store's answer is
// read only when the training step lets the thread go (one turn per step), so
// a write-behind queue that hands the store a few writes per turn fills up and
// drops the rest, and the next epoch loads them from the network again. With
// the default options every sample of a busy epoch reaches the store.
import { fromLoader, ManualClock, MemoryStore, PersistentTierDataset } from '@medfusion/core';
import { describe, expect, it } from 'vitest';

/** A store whose puts settle only when the consumer's turn ends ({@link turn}). */
class TurnStore extends MemoryStore {
  private parked: (() => void)[] = [];

  override async put(key: string, value: Uint8Array): Promise<void> {
    await new Promise<void>((resolve) => this.parked.push(resolve));
    return super.put(key, value);
  }

  /** The page thread is free for a moment: every answer that arrived is read. */
  turn(): void {
    const parked = this.parked;
    this.parked = [];
    for (const settle of parked) settle();
  }
}

const PER_TURN = 30; // samples one training step consumes (the demo: batch 32)
const TURNS = 40;

async function busyEpoch(writeQueue?: { concurrency: number }) {
  const store = new TurnStore();
  const tier = new PersistentTierDataset(
    fromLoader(PER_TURN * TURNS, async (i) => new Float32Array(64).fill(i)),
    // a clock that never moves: writes go when half the queue is taken, not by the timer
    { store, fingerprint: 'busy', clock: new ManualClock(), ...(writeQueue ? { writeQueue } : {}) },
  );
  for (let t = 0; t < TURNS; t++) {
    const batch = [];
    for (let i = t * PER_TURN; i < (t + 1) * PER_TURN; i++) batch.push(tier.get(i));
    await Promise.all(batch);
    store.turn();
    await new Promise((r) => setTimeout(r, 0));
  }
  const flushed = tier.flush();
  for (let i = 0; i < 100 && tier.getDiskStats().pendingWrites > 0; i++) {
    store.turn();
    await new Promise((r) => setTimeout(r, 0));
  }
  await flushed;
  const stats = tier.getDiskStats();
  await tier.close();
  return { stats, stored: (await store.keys()).length };
}

describe('the disk tier under a consumer that reads answers once per step', () => {
  it('writes every sample of the epoch with the default options', async () => {
    const { stats, stored } = await busyEpoch();
    expect(stats.writesDropped).toBe(0);
    expect(stats.diskWrites).toBe(PER_TURN * TURNS);
    expect(stored).toBe(PER_TURN * TURNS);
  });

  it('drops writes, and counts them, when the store gets only 4 per turn', async () => {
    const { stats, stored } = await busyEpoch({ concurrency: 4 });
    expect(stats.writesDropped).toBeGreaterThan(0);
    expect(stats.diskWrites + stats.writesDropped).toBe(PER_TURN * TURNS);
    expect(stored).toBe(stats.diskWrites);
  });
});
