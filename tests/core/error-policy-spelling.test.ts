// onError's retry settings are spelled as retry()'s RetryOptions: { retries, baseDelayMs,
// maxDelayMs }, retries counted after the first attempt; the 0.1 names are refused, not ignored.
import { DataLoader, fromArray } from '@medfusion/core';
import { resolveErrorPolicy } from '@medfusion/core/internal';
import { describe, expect, it } from 'vitest';

describe("onError retry uses RetryOptions' spelling", () => {
  it("'retry' is 2 retries after the first attempt, 100 ms doubling up to 5000 ms", () => {
    expect(resolveErrorPolicy('retry')).toEqual({
      retries: 2,
      baseDelayMs: 100,
      maxDelayMs: 5000,
      skip: true,
    });
    expect(resolveErrorPolicy({ retry: {} })).toEqual(resolveErrorPolicy('retry'));
  });

  it('takes retries, baseDelayMs and maxDelayMs; retries: 0 means one attempt', () => {
    expect(resolveErrorPolicy({ retry: { retries: 0, baseDelayMs: 5, maxDelayMs: 20 } })).toEqual({
      retries: 0,
      baseDelayMs: 5,
      maxDelayMs: 20,
      skip: true,
    });
  });

  it.each([
    ['attempts', 3, /onError\.retry\.attempts is now retries.*attempts: 3/],
    ['backoffMs', 50, /onError\.retry\.backoffMs is now baseDelayMs.*backoffMs: 50/],
    ['maxBackoffMs', 400, /onError\.retry\.maxBackoffMs is now maxDelayMs.*maxBackoffMs: 400/],
    ['delay', 1, /unknown option onError\.retry\.delay; .*retries, baseDelayMs, maxDelayMs/],
  ])('refuses %s with a TypeError naming its spelling', (key, value, message) => {
    const make = () => new DataLoader(fromArray([1]), { onError: { retry: { [key]: value } } });
    expect(make).toThrow(TypeError);
    expect(make).toThrow(message);
  });
});
