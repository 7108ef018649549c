// Bad samples inside Web Workers (real Chromium): a loader that throws in the
// worker for 10 % of the indices, under 'skip' and 'retry'. Every epoch ends,
// delivered = plan − failures, and each failure names its index and carries
// the worker's error (name, message, code) across postMessage.
import { createCachedDataset, DataLoader, fromLoader } from '@medfusion/core';
import { createWorkerExecutor } from '@medfusion/web';
import { afterEach, describe, expect, it } from 'vitest';
import { COLD_START, COLD_WAIT } from '../setup/coldStart.js';
import { bounded, intact, pick, report, type Sample, seeded } from './harness.js';

const LENGTH = 400;

const closers: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const close of closers.splice(0)) await close();
});

describe('bad samples in workers', () => {
  for (const onError of ['skip', 'retry'] as const) {
    it(`10 % of loads throw inside the workers (${onError})`, { timeout: 120_000 }, async ({
      task,
    }) => {
      const bad = pick(LENGTH, LENGTH / 10, seeded(9));
      const executor = createWorkerExecutor<Sample>({
        worker: () =>
          new Worker(new URL('./fixtures/numbered.worker.ts', import.meta.url), {
            type: 'module',
            name: `bad:${[...bad].join(',')}`,
          }),
        poolSize: 2,
        ...COLD_START,
      });
      closers.push(() => executor.close());
      // the bound below is the epoch's: a cold start of the pool comes before it
      await expect.poll(() => executor.stats().readyWorkers, COLD_WAIT).toBe(2);
      const cached = createCachedDataset(
        fromLoader<Sample>(LENGTH, () => {
          throw new Error('loads run in the workers');
        }),
        { cacheType: 'both', executor, cacheSize: 50, prefetchSize: 32, numWorkers: 8 },
      );
      closers.push(() => cached.close());
      const loader = new DataLoader<Sample, Sample[]>(cached, {
        batchSize: 32,
        shuffle: true,
        onError: onError === 'skip' ? 'skip' : { retry: { retries: 1, baseDelayMs: 5 } },
        collate: (s) => s.slice(),
      });
      const delivered = new Set<number>();
      const { ms } = await bounded(`worker errors ${onError}`, 30_000, async () => {
        for await (const batch of loader) {
          for (const s of batch) {
            expect(intact(s, s.index)).toBe(true);
            delivered.add(s.index);
          }
        }
      });
      const failures = loader.failures;
      expect(delivered.size + failures.length).toBe(LENGTH);
      expect(new Set(failures.map((f) => f.index))).toEqual(bad);
      for (const f of failures) {
        expect(f.cause).toMatchObject({ name: 'CorruptImageError', code: 'CORRUPT_IMAGE' });
        expect((f.cause as Error).message).toBe(`image ${f.index} does not decode`);
        expect(f.attempts).toBe(onError === 'skip' ? 1 : 2);
      }
      if (onError === 'retry') expect(loader.quarantine?.size).toBe(bad.size);
      report(task, {
        scenario: 'bad samples',
        case: `worker executor / 10 % / ${onError}`,
        figures: {
          planned: LENGTH,
          delivered: delivered.size,
          failures: failures.length,
          ms: Math.round(ms),
        },
      });
    });
  }
});
