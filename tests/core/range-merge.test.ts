import { type ByteRange, mergeRanges } from '@medfusion/core';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';

describe('mergeRanges', () => {
  it('merges ranges closer than maxGap and keeps far ones apart', () => {
    const merged = mergeRanges(
      [
        { start: 100, end: 110 },
        { start: 0, end: 10 },
        { start: 12, end: 20 },
      ],
      { maxGap: 4 },
    );
    expect(merged.map((m) => [m.start, m.end, m.parts.length])).toEqual([
      [0, 20, 2],
      [100, 110, 1],
    ]);
  });

  it('never exceeds maxRequestBytes unless a single range is larger', () => {
    const merged = mergeRanges(
      [
        { start: 0, end: 60 },
        { start: 60, end: 120 },
        { start: 120, end: 400 },
      ],
      { maxGap: 0, maxRequestBytes: 100 },
    );
    expect(merged.map((m) => [m.start, m.end])).toEqual([
      [0, 60],
      [60, 120],
      [120, 400],
    ]);
  });

  it('covers every input range exactly once (property)', () => {
    const range = fc
      .tuple(fc.nat(10_000), fc.nat(500))
      .map(([start, len]): ByteRange => ({ start, end: start + len }));
    fc.assert(
      fc.property(fc.array(range, { maxLength: 40 }), fc.nat(2000), (ranges, maxGap) => {
        const merged = mergeRanges(ranges, { maxGap });
        expect(merged.reduce((n, m) => n + m.parts.length, 0)).toBe(ranges.length);
        for (const m of merged) {
          for (const p of m.parts) {
            expect(p.start).toBeGreaterThanOrEqual(m.start);
            expect(p.end).toBeLessThanOrEqual(m.end);
          }
        }
        for (let i = 1; i < merged.length; i++) {
          const gap = (merged[i] as ByteRange).start - (merged[i - 1] as ByteRange).end;
          expect(gap).toBeGreaterThan(maxGap);
        }
      }),
    );
  });

  it('rejects inverted ranges and bad limits', () => {
    expect(() => mergeRanges([{ start: 5, end: 2 }])).toThrow(/ranges\[0\].*\[5, 2\)/);
    expect(() => mergeRanges([], { maxGap: -1 })).toThrow(/maxGap.*-1/);
    expect(() => mergeRanges([], { maxRequestBytes: 0 })).toThrow(/maxRequestBytes.*0/);
  });
});

describe('mergeRanges option names', () => {
  it('refuses maxBytes (a byte budget elsewhere), naming maxRequestBytes', () => {
    const make = () => mergeRanges([], { maxBytes: 100 } as never);
    expect(make).toThrow(TypeError);
    expect(make).toThrow(/maxBytes is now maxRequestBytes.*maxBytes: 100/);
  });
});
