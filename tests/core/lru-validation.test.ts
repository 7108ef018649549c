import { LRUCache } from '@medfusion/core';
import { describe, expect, it } from 'vitest';

describe('LRUCache rejects bad options naming the option and the value', () => {
  it.each([
    [{ capacity: 0 }, RangeError, /capacity must be a positive integer, got 0/],
    [{ capacity: -3 }, RangeError, /capacity must be a positive integer, got -3/],
    [{ capacity: 2.5 }, RangeError, /capacity must be a positive integer, got 2.5/],
    [{ capacity: Number.NaN }, RangeError, /capacity must be a positive integer, got NaN/],
    [{ capacity: Number.POSITIVE_INFINITY }, RangeError, /capacity .* got Infinity/],
    [{ capacity: 2 ** 40 }, RangeError, /capacity must be at most/],
    [{ capacity: '10' }, TypeError, /capacity must be a positive integer, got "10"/],
    [{}, TypeError, /capacity must be a positive integer, got undefined/],
    [{ capacity: 1, maxBytes: 0 }, RangeError, /maxBytes must be a finite positive number, got 0/],
    [{ capacity: 1, maxBytes: -1 }, RangeError, /maxBytes .* got -1/],
    [{ capacity: 1, maxBytes: Number.POSITIVE_INFINITY }, RangeError, /maxBytes .* got Infinity/],
    [{ capacity: 1, maxBytes: Number.NaN }, RangeError, /maxBytes .* got NaN/],
    [{ capacity: 1, maxBytes: '5' }, TypeError, /maxBytes .* got "5"/],
    [{ capacity: 1, sizeOf: 4 }, TypeError, /sizeOf must be a function, got 4/],
    [{ capacity: 1, onEvict: 'x' }, TypeError, /onEvict must be a function, got "x"/],
  ])('%o', (options, type, message) => {
    const make = () => new LRUCache(options as unknown as { capacity: number });
    expect(make).toThrow(type);
    expect(make).toThrow(message);
  });

  it("rejects unknown options (such as lru-cache's max) by name", () => {
    const make = () => new LRUCache({ capacity: 5, max: 5 } as unknown as { capacity: number });
    expect(make).toThrow(TypeError);
    expect(make).toThrow(
      /unknown option "max"; LRUCache takes capacity, maxBytes, sizeOf, onEvict/,
    );
  });

  it('rejects a missing options object', () => {
    expect(() => new LRUCache(undefined as unknown as { capacity: number })).toThrow(TypeError);
    expect(() => new LRUCache(null as unknown as { capacity: number })).toThrow(
      /options must be an object, got null/,
    );
  });

  it.each([
    [-1, /got -1 for key "k"/],
    [Number.NaN, /got NaN/],
    [Number.POSITIVE_INFINITY, /got Infinity/],
    ['3', /got "3"/],
  ])('rejects sizeOf returning %o without changing the cache', (bad, message) => {
    const c = new LRUCache<string, number>({ capacity: 2, sizeOf: () => bad as number });
    expect(() => c.set('k', 1)).toThrow(RangeError);
    expect(() => c.set('k', 1)).toThrow(message);
    expect(c.size).toBe(0);
    expect(c.stats().sets).toBe(0);
  });
});
