import { backoffDelay, ManualClock, RetryExhaustedError, retry } from '@medfusion/core';
import { describe, expect, it } from 'vitest';

class Transient extends Error {
  readonly retryable = true;
}

describe('retry', () => {
  it('retries transient failures with exponential backoff on the injected clock', async () => {
    const clock = new ManualClock();
    const attemptsAt: number[] = [];
    const p = retry(
      async (n) => {
        attemptsAt.push(clock.now());
        if (n < 4) throw new Transient(`fail ${n}`);
        return 'ok';
      },
      { clock, baseDelayMs: 100, factor: 2, jitter: 0 },
    );
    await clock.advance(1000);
    await expect(p).resolves.toBe('ok');
    expect(attemptsAt).toEqual([0, 100, 300, 700]);
  });

  it('throws non-retryable errors at once', async () => {
    let calls = 0;
    const err = new TypeError('bad');
    await expect(
      retry(async () => {
        calls++;
        throw err;
      }),
    ).rejects.toBe(err);
    expect(calls).toBe(1);
  });

  it('gives up with RETRIES_EXHAUSTED carrying the last error', async () => {
    const clock = new ManualClock();
    const p = retry(
      async (n) => {
        throw new Transient(`fail ${n}`);
      },
      { clock, retries: 2, jitter: 0 },
    );
    const settled = p.catch((e: unknown) => e);
    await clock.advance(10_000);
    const e = await settled;
    expect(e).toBeInstanceOf(RetryExhaustedError);
    expect((e as RetryExhaustedError).code).toBe('RETRIES_EXHAUSTED');
    expect((e as RetryExhaustedError).attempts).toBe(3);
    expect(((e as Error).cause as Error).message).toBe('fail 3');
  });

  it('stops waiting when aborted', async () => {
    const clock = new ManualClock();
    const ac = new AbortController();
    const p = retry(
      async () => {
        throw new Transient('x');
      },
      { clock, signal: ac.signal },
    );
    const settled = p.catch((e: unknown) => e);
    await clock.advance(10);
    ac.abort(new Error('stop'));
    expect(((await settled) as Error).message).toBe('stop');
    expect(clock.pending).toBe(0);
  });

  it('caps delays and validates options', async () => {
    expect(backoffDelay(1, { baseDelayMs: 50 })).toBe(50);
    expect(backoffDelay(10, { baseDelayMs: 50, maxDelayMs: 1000 })).toBe(1000);
    expect(() => backoffDelay(1, { factor: 0 })).toThrow(/factor.*0/);
    await expect(retry(async () => 1, { retries: -1 })).rejects.toThrow(/retries.*-1/);
  });
});
