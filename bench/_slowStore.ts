// A disk for the benches that run the disk tier in Node: core's MemoryStore behind a read
// latency (timer latency, overlappable like the seed source's loads). Node's timers fire no
// sooner than 1 ms, so a read of `readMs` < 1 takes about 1 ms: `latency` records what was
// measured. Writes go straight through (the disk tier writes behind the reader's back).
import { MemoryStore, type PersistentStore, type StoreUsage } from '@medfusion/core';
import type { LoadLatency } from './_seedSource.js';

/** A {@link PersistentStore} whose `get` answers after `readMs` of timer latency. */
export class SlowStore implements PersistentStore {
  private readonly inner = new MemoryStore();

  constructor(
    private readonly readMs: number,
    /** Measured latency of the reads (timers overshoot on a busy machine). */
    readonly latency: LoadLatency = { sum: 0, count: 0 },
  ) {}

  /** A new store holding what this one holds (same read latency, same latency record). */
  async copy(): Promise<SlowStore> {
    const out = new SlowStore(this.readMs, this.latency);
    for (const key of await this.inner.keys()) await out.put(key, (await this.inner.get(key))!);
    return out;
  }

  get(key: string): Promise<Uint8Array | undefined> {
    const started = performance.now();
    return new Promise((resolve, reject) => {
      setTimeout(() => {
        this.latency.sum += performance.now() - started;
        this.latency.count++;
        this.inner.get(key).then(resolve, reject);
      }, this.readMs);
    });
  }
  put(key: string, value: Uint8Array): Promise<void> {
    return this.inner.put(key, value);
  }
  delete(key: string): Promise<boolean> {
    return this.inner.delete(key);
  }
  has(key: string): Promise<boolean> {
    return this.inner.has(key);
  }
  keys(): Promise<string[]> {
    return this.inner.keys();
  }
  clear(): Promise<void> {
    return this.inner.clear();
  }
  usage(): Promise<StoreUsage> {
    return this.inner.usage();
  }
}
