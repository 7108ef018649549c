// Soak: 50 epochs over 10,000 samples with random faults (transient ones on
// any load, a few permanent ones), through the 'both' strategy and a retrying
// DataLoader, all on one injected clock. No hang (bounded), nothing lost
// (delivered + failures = plan every epoch), no leak (heap after GC, pending
// timers and loads in flight stable).

import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { createCachedDataset, DataLoader, type Dataset, ManualClock } from '@medfusion/core';
import { describe, expect, it } from 'vitest';
import {
  bounded,
  driveClock,
  InjectedFault,
  intact,
  pick,
  pixelsOf,
  report,
  type Sample,
  seeded,
} from './harness.js';

const LENGTH = 10_000;
const EPOCHS = 50;
const TRANSIENT = 0.01; // each load fails with this probability
const PERMANENT = 20;

setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;

function heapAfterGc(): number {
  gc();
  gc();
  return process.memoryUsage().heapUsed;
}

describe('soak', () => {
  it('50 epochs × 10,000 samples with random faults: no hang, nothing lost, no leak', async ({
    task,
  }) => {
    const random = seeded(50);
    const bad = pick(LENGTH, PERMANENT, random);
    const loads = new Uint32Array(LENGTH);
    let transientFaults = 0;
    const source: Dataset<Sample> = {
      length: LENGTH,
      get: (index) =>
        Promise.resolve().then(() => {
          const attempt = ++loads[index]!;
          if (bad.has(index)) throw new InjectedFault(index, attempt);
          if (random() < TRANSIENT) {
            transientFaults++;
            throw new InjectedFault(index, attempt);
          }
          return { index, pixels: pixelsOf(index, 64) };
        }),
    };
    const clock = new ManualClock();
    const cached = createCachedDataset(source, {
      cacheType: 'both',
      cacheSize: 1000,
      prefetchSize: 64,
      numWorkers: 8,
      clock,
      loadTimeoutMs: 3_600_000,
    });
    const loader = new DataLoader<Sample, number>(cached, {
      batchSize: 64,
      shuffle: true,
      seed: 50,
      onError: { retry: { retries: 3, baseDelayMs: 5, maxDelayMs: 50 } },
      clock,
      collate: (samples) => {
        for (const s of samples) if (!intact(s, s.index)) throw new Error(`corrupt ${s.index}`);
        return samples.length;
      },
    });

    const handlesBefore = process.getActiveResourcesInfo().length;
    let warmHeap = 0;
    let lastHeap = 0;
    let failuresTotal = 0;
    const { ms } = await bounded('soak', 110_000, async () => {
      for (let e = 0; e < EPOCHS; e++) {
        let delivered = 0;
        await driveClock(
          clock,
          (async () => {
            for await (const n of loader) delivered += n;
          })(),
        );
        const failures = loader.failures;
        failuresTotal += failures.length;
        expect(delivered + failures.length).toBe(LENGTH);
        for (const i of bad) expect(failures.some((f) => f.index === i)).toBe(true);
        // nothing left running between epochs: no timer, no load, no buffer growth
        expect(clock.pending).toBe(0);
        const stats = cached.getCacheStats();
        expect(stats.inFlight).toBe(0);
        expect(stats.size).toBeLessThanOrEqual(1000);
        if (e === 4) warmHeap = heapAfterGc();
      }
      lastHeap = heapAfterGc();
    });
    expect(loader.epoch).toBe(EPOCHS);
    // permanent faults were fetched only in the first epoch (then quarantined)
    for (const i of bad) expect(loads[i]).toBeLessThanOrEqual(2 * 4);
    expect(loader.quarantine?.size).toBeGreaterThanOrEqual(PERMANENT);
    expect(transientFaults).toBeGreaterThan(0);
    // 45 more epochs must not grow the heap: a leak of one 64-byte sample per
    // read would add > 28 MB
    const growth = lastHeap - warmHeap;
    expect(growth).toBeLessThan(16 * 2 ** 20);
    // no timer, socket or other handle left open by 50 epochs
    const handlesAfter = process.getActiveResourcesInfo().length;
    expect(handlesAfter).toBeLessThanOrEqual(handlesBefore);
    await cached.close();
    report(task, {
      scenario: 'soak',
      case: '50 epochs × 10,000, both, retry',
      figures: {
        reads: EPOCHS * LENGTH,
        transientFaults,
        failures: failuresTotal,
        quarantined: loader.quarantine?.size ?? 0,
        heapGrowthMB: +(growth / 2 ** 20).toFixed(2),
        pendingTimers: clock.pending,
        openHandlesDelta: handlesAfter - handlesBefore,
        s: +(ms / 1000).toFixed(1),
      },
    });
  }, 120_000);
});
