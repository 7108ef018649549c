// onError retry: exponential backoff on the injected clock, recovery of
// transient faults, quarantine of what fails every attempt, `afterRetries: 'throw'`,
// and an abort during a backoff wait ends the epoch at once with no timer left.
import { DataLoader, fromLoader, ManualClock, SampleFailedError } from '@medfusion/core';
import { describe, expect, it } from 'vitest';
import { bounded, driveClock, HANG_MS } from './harness.js';

/** Index 3 fails `failures` times (then loads); attempt times are recorded. */
function flaky(clock: ManualClock, failures: number) {
  const times: number[] = [];
  let n = 0;
  const ds = fromLoader(6, async (i) => {
    if (i !== 3) return i;
    times.push(clock.now());
    if (++n <= failures) throw new Error(`flaky ${n}`);
    return i;
  });
  return { ds, times };
}

async function epoch(loader: DataLoader<number, number[]>, clock: ManualClock) {
  const out: number[] = [];
  await driveClock(
    clock,
    (async () => {
      for await (const b of loader) out.push(...b);
    })(),
  );
  return out;
}

describe('onError retry', () => {
  it('waits baseDelayMs, doubling, capped by maxDelayMs, on the injected clock', async () => {
    const clock = new ManualClock();
    const { ds, times } = flaky(clock, 100);
    const loader = new DataLoader<number, number[]>(ds, {
      batchSize: 6,
      onError: { retry: { retries: 4, baseDelayMs: 100, maxDelayMs: 150 } },
      clock,
      collate: (s) => s.slice(),
    });
    const { value: out } = await bounded('retry schedule', 10_000, () => epoch(loader, clock));
    expect(out).toEqual([0, 1, 2, 4, 5]);
    expect(times).toEqual([0, 100, 250, 400, 550]);
    const [f] = loader.failures;
    expect(f).toMatchObject({ index: 3, attempts: 5 });
    expect((f!.cause as Error).message).toBe('flaky 5');
    expect(loader.quarantine?.indices()).toEqual([3]);
    expect(clock.pending).toBe(0);
  });

  it("'retry' recovers a transient fault: delivered, not reported, not quarantined", async () => {
    const clock = new ManualClock();
    const { ds, times } = flaky(clock, 2);
    const loader = new DataLoader<number, number[]>(ds, {
      batchSize: 4,
      onError: 'retry',
      clock,
      collate: (s) => s.slice(),
    });
    expect(await epoch(loader, clock)).toEqual([0, 1, 2, 3, 4, 5]);
    expect(times).toEqual([0, 100, 300]); // the documented default: 3 attempts, 100 ms doubling
    expect(loader.failures).toEqual([]);
    expect(loader.quarantine?.size).toBe(0);
  });

  it("afterRetries: 'throw' fails the epoch with SampleFailedError naming the index and attempts", async () => {
    const clock = new ManualClock();
    const { ds } = flaky(clock, 100);
    const loader = new DataLoader<number, number[]>(ds, {
      batchSize: 2,
      onError: { retry: { retries: 2, baseDelayMs: 10 }, afterRetries: 'throw' },
      clock,
      collate: (s) => s.slice(),
    });
    const error = await epoch(loader, clock).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(SampleFailedError);
    expect(error).toMatchObject({ code: 'LOAD_FAILED', index: 3, attempts: 3 });
    expect((error as Error).message).toMatch(/sample 3 .*after 3 attempts/);
    expect(loader.failures).toMatchObject([{ index: 3, attempts: 3 }]);
  });

  it('quarantine: false fetches a failed sample again next epoch', async () => {
    const clock = new ManualClock();
    const { ds, times } = flaky(clock, 100);
    const loader = new DataLoader<number, number[]>(ds, {
      onError: { retry: { retries: 1, baseDelayMs: 1 } },
      quarantine: false,
      clock,
      collate: (s) => s.slice(),
    });
    await epoch(loader, clock);
    await epoch(loader, clock);
    expect(times).toHaveLength(4);
    expect(loader.quarantine).toBeUndefined();
  });

  it('an abort during a backoff wait ends the epoch at once, leaving no timer', async () => {
    const clock = new ManualClock();
    const { ds, times } = flaky(clock, 100);
    const ctrl = new AbortController();
    const loader = new DataLoader<number, number[]>(ds, {
      batchSize: 6,
      onError: { retry: { retries: 9, baseDelayMs: 60_000 } },
      clock,
      signal: ctrl.signal,
      collate: (s) => s.slice(),
    });
    const run = (async () => {
      for await (const _ of loader);
    })().catch((e: unknown) => e);
    await clock.advance(0);
    expect(times).toEqual([0]);
    expect(clock.pending).toBe(1); // the backoff wait
    ctrl.abort(new Error('stop'));
    const { value: error } = await bounded('abort in backoff', HANG_MS, () => run);
    expect((error as Error).message).toBe('stop');
    expect(clock.pending).toBe(0);
    expect(loader.failures).toEqual([]); // an abort is not a sample failure
  });
});
