import { SizeLimitError } from '@medfusion/core';
import { checkUntrustedSize, untrustedSizeError } from '@medfusion/core/internal';
import { describe, expect, it } from 'vitest';

describe('checkUntrustedSize: one check for sizes read from untrusted bytes', () => {
  it('returns a size within the real size and the cap (bigint too)', () => {
    expect(checkUntrustedSize('page 0 of a.parquet', 10, { actual: 10, cap: 20 })).toBe(10);
    expect(checkUntrustedSize('row group 0 of a.parquet', 5n, { cap: 5, unit: 'rows' })).toBe(5);
    expect(untrustedSizeError('x', 0, {})).toBeUndefined();
  });

  it('names the file, the claim and the real size', () => {
    const e = untrustedSizeError('page 2 of https://h/a.parquet', 2 ** 31, {
      actual: 1200,
      actualName: 'the file size',
    });
    expect(e).toBeInstanceOf(SizeLimitError);
    expect(e).toMatchObject({ code: 'SIZE_LIMIT', claimed: 2 ** 31, allowed: 1200 });
    expect(e?.message).toBe(
      'page 2 of https://h/a.parquet claims 2,147,483,648 bytes, more than the file size (1,200)',
    );
  });

  it('names the cap option', () => {
    expect(() =>
      checkUntrustedSize('row group 0 of a.parquet', 10n ** 9n, {
        cap: 1000,
        capName: 'maxRowGroupRows',
        unit: 'rows',
      }),
    ).toThrow(
      'row group 0 of a.parquet claims 1,000,000,000 rows, more than maxRowGroupRows 1,000',
    );
  });

  it('refuses what is not a size', () => {
    for (const bad of [Number.NaN, -1, 1.5, 2 ** 60, Number.POSITIVE_INFINITY, 2n ** 64n]) {
      expect(() => checkUntrustedSize('entry k', bad, {})).toThrow(/which is not a size/);
    }
  });
});
