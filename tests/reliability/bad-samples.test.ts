// Bad samples: 1 %, 10 % and 50 % of loads fail, under every strategy and every
// onError policy. Every epoch ends; delivered = plan − reported failures; each
// failure carries its index and cause; what fails every retry is quarantined
// and not fetched again.
import {
  type CacheType,
  createCachedDataset,
  DataLoader,
  type Dataset,
  flushMicrotasks,
  LoadError,
  ManualClock,
  QuarantinedError,
  type SampleFailure,
} from '@medfusion/core';
import { describe, expect, it } from 'vitest';
import {
  bounded,
  driveClock,
  faultyDataset,
  InjectedFault,
  intact,
  pick,
  report,
  type Sample,
  seeded,
} from './harness.js';

const LENGTH = 1000;
const STRATEGIES = ['direct', 'none', 'lru', 'prefetch', 'both'] as const;
const RATES = [0.01, 0.1, 0.5];

type Strategy = (typeof STRATEGIES)[number];

function wrap(ds: Dataset<Sample>, strategy: Strategy) {
  if (strategy === 'direct') return { dataset: ds, stats: () => undefined, close: async () => {} };
  const cached = createCachedDataset(ds, {
    cacheType: strategy as CacheType,
    cacheSize: 100,
    prefetchSize: 64,
    numWorkers: 8,
  });
  return { dataset: cached, stats: () => cached.getCacheStats(), close: () => cached.close() };
}

/** Read one epoch; returns delivered indices (checked intact) and the loader's failures. */
async function epoch(loader: DataLoader<Sample, Sample[]>) {
  const delivered: number[] = [];
  for await (const batch of loader) {
    for (const s of batch) {
      expect(intact(s, s.index)).toBe(true);
      delivered.push(s.index);
    }
  }
  return { delivered, failures: [...loader.failures] };
}

/** delivered and failures partition the epoch's plan, each index once. */
function expectPartition(delivered: number[], failures: readonly SampleFailure[], plan: number) {
  const seen = new Uint8Array(plan);
  for (const i of delivered) seen[i]! += 1;
  for (const f of failures) seen[f.index]! += 1;
  expect(delivered.length + failures.length).toBe(plan);
  expect(seen.every((c) => c === 1)).toBe(true);
}

describe('bad samples under every strategy', () => {
  for (const strategy of STRATEGIES) {
    for (const rate of RATES) {
      const label = `${strategy} / ${rate * 100} %`;

      it(`skip: ${label} — the epoch ends, delivered = plan − failures`, async ({ task }) => {
        const random = seeded(1000 + rate * 100);
        const failing = pick(LENGTH, Math.round(LENGTH * rate), random);
        const src = faultyDataset({ length: LENGTH, bad: failing });
        const { dataset, stats, close } = wrap(src.dataset, strategy);
        const reported: SampleFailure[] = [];
        const loader = new DataLoader<Sample, Sample[]>(dataset, {
          batchSize: 32,
          shuffle: true,
          seed: 3,
          onError: 'skip',
          onSampleError: (f) => reported.push(f),
          collate: (s) => s.slice(),
        });
        const { value, ms } = await bounded(label, 20_000, () => epoch(loader));
        const { delivered, failures } = value;
        expectPartition(delivered, failures, LENGTH);
        expect(new Set(failures.map((f) => f.index))).toEqual(failing);
        expect(reported).toEqual(failures);
        for (const f of failures) {
          // the loader's own error, naming its index (engines may wrap it in a LoadError)
          const cause = f.cause instanceof LoadError ? f.cause.cause : f.cause;
          expect(cause).toBeInstanceOf(InjectedFault);
          expect((cause as InjectedFault).index).toBe(f.index);
          expect(f.attempts).toBe(1);
        }
        expect(loader.epoch).toBe(1);
        await flushMicrotasks();
        expect(stats()?.inFlight ?? 0).toBe(0);
        await close();
        report(task, {
          scenario: 'bad samples',
          case: `${label} / skip`,
          figures: {
            planned: LENGTH,
            delivered: delivered.length,
            failures: failures.length,
            ms: Math.round(ms),
          },
        });
      });

      it(`retry: ${label} — transient faults recover, permanent ones are quarantined`, async ({
        task,
      }) => {
        const random = seeded(2000 + rate * 100);
        const failing = [...pick(LENGTH, Math.round(LENGTH * rate), random)];
        const bad = new Set(failing.filter((_, i) => i % 2 === 0));
        const flaky = new Set(failing.filter((_, i) => i % 2 === 1));
        const src = faultyDataset({ length: LENGTH, bad, flaky, transientFailures: 1 });
        const { dataset, stats, close } = wrap(src.dataset, strategy);
        const clock = new ManualClock();
        const loader = new DataLoader<Sample, Sample[]>(dataset, {
          batchSize: 32,
          shuffle: true,
          seed: 5,
          onError: { retry: { retries: 2, baseDelayMs: 50, maxDelayMs: 400 } },
          clock,
          collate: (s) => s.slice(),
        });
        const first = await bounded(label, 20_000, () => driveClock(clock, epoch(loader)));
        expectPartition(first.value.delivered, first.value.failures, LENGTH);
        expect(new Set(first.value.failures.map((f) => f.index))).toEqual(bad);
        for (const f of first.value.failures) {
          expect(f.attempts).toBe(3);
          expect(f.cause).toBeInstanceOf(InjectedFault);
          expect((f.cause as InjectedFault).index).toBe(f.index);
        }
        expect(new Set(loader.quarantine?.indices())).toEqual(bad);
        expect(clock.pending).toBe(0); // no backoff timer left behind

        // next epoch: quarantined samples are reported but never fetched again
        const before = src.loads.slice();
        const second = await bounded(label, 20_000, () => driveClock(clock, epoch(loader)));
        expectPartition(second.value.delivered, second.value.failures, LENGTH);
        expect(new Set(second.value.failures.map((f) => f.index))).toEqual(bad);
        for (const f of second.value.failures) {
          expect(f.cause).toBeInstanceOf(QuarantinedError);
          expect(f.attempts).toBe(0);
          expect(src.loads[f.index]).toBe(before[f.index]);
        }
        expect(loader.epoch).toBe(2);
        await flushMicrotasks();
        expect(stats()?.inFlight ?? 0).toBe(0);
        await close();
        report(task, {
          scenario: 'bad samples',
          case: `${label} / retry`,
          figures: {
            planned: LENGTH,
            delivered: first.value.delivered.length,
            failures: first.value.failures.length,
            quarantined: loader.quarantine?.size ?? 0,
            refetched: second.value.failures.filter((f) => src.loads[f.index] !== before[f.index])
              .length,
            ms: Math.round(first.ms + second.ms),
          },
        });
      });

      it(`throw: ${label} — the epoch fails with the index, nothing hangs`, async ({ task }) => {
        const random = seeded(3000 + rate * 100);
        const failing = pick(LENGTH, Math.round(LENGTH * rate), random);
        const src = faultyDataset({ length: LENGTH, bad: failing });
        const { dataset, stats, close } = wrap(src.dataset, strategy);
        const loader = new DataLoader<Sample, Sample[]>(dataset, {
          batchSize: 32,
          shuffle: true,
          seed: 7,
          onError: 'throw',
          collate: (s) => s.slice(),
        });
        const { value: error } = await bounded(label, 20_000, () =>
          epoch(loader).then(
            () => undefined,
            (e: unknown) => e,
          ),
        );
        expect(error).toBeInstanceOf(LoadError);
        const index = (error as LoadError).index!;
        expect(failing.has(index)).toBe(true);
        expect((error as Error).message).toContain(`sample ${index}`);
        expect(loader.failures).toHaveLength(1);
        expect(loader.failures[0]?.index).toBe(index);
        // prefetch may go on along the plan, but only up to its bounded window
        for (let i = 0; i < 50 && (stats()?.inFlight ?? 0) > 0; i++) await flushMicrotasks();
        expect(stats()?.inFlight ?? 0).toBe(0);
        await close();
        report(task, {
          scenario: 'bad samples',
          case: `${label} / throw`,
          figures: { planned: LENGTH, failedAt: index, failures: loader.failures.length },
        });
      });
    }
  }
});
