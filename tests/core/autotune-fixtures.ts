// Shared by the autotune tests: a source whose loads take manual-clock time, and a consumer.
import type { CachingDataset, Dataset, GetOptions, ManualClock } from '@medfusion/core';
import { expect } from 'vitest';

export interface Sample {
  index: number;
  data: Uint8Array;
}

/** A source whose loads take `latencyMs` of the manual clock (changeable mid-run). */
export class TimedSource implements Dataset<Sample> {
  latencyMs = 5;
  active = 0;
  maxActive = 0;
  constructor(
    readonly length: number,
    private readonly clock: ManualClock,
  ) {}
  get(index: number, opts?: GetOptions): Promise<Sample> {
    this.active++;
    this.maxActive = Math.max(this.maxActive, this.active);
    return new Promise((resolve, reject) => {
      const timer = this.clock.setTimeout(() => {
        this.active--;
        resolve({ index, data: new Uint8Array(100) });
      }, this.latencyMs);
      opts?.signal?.addEventListener('abort', () => {
        this.clock.clearTimeout(timer);
        this.active--;
        reject(opts.signal?.reason);
      });
    });
  }
}

/** Read `index`, moving the clock 1 ms at a time while the read waits. */
export async function read(
  ds: CachingDataset<Sample>,
  index: number,
  clock: ManualClock,
): Promise<void> {
  const got = ds.get(index);
  if (!(got instanceof Promise)) return;
  let done = false;
  got.then(
    () => {
      done = true;
    },
    () => {
      done = true;
    },
  );
  await clock.advance(0);
  while (!done) await clock.advance(1);
  expect((await got).index).toBe(index);
}

/** The stall share of reads [from, to): wall time the consumer spent waiting for data. */
export async function run(
  ds: CachingDataset<Sample>,
  clock: ManualClock,
  from: number,
  to: number,
  stepMs: number,
): Promise<number> {
  const t0 = clock.now();
  const stall0 = ds.getCacheStats().stallMs;
  for (let i = from; i < to; i++) {
    await read(ds, i, clock);
    await clock.advance(stepMs); // the training step
  }
  return (ds.getCacheStats().stallMs - stall0) / (clock.now() - t0);
}
