// CsvImageDataset in real Chromium against real files served over HTTP by the
// test server on 127.0.0.1. Fixtures (tests/web/fixtures/csv-images/): four 8×8
// grayscale PNGs g<i>.png whose pixel (x, y) is (50 i + 3 x + 5 y) mod 256, and
// one RGB PNG whose pixel p is (200, 100, 4 p).
import { CsvFormatError, CsvImageDataset } from '@medfusion/web';
import { describe, expect, it } from 'vitest';

const base = new URL('/tests/web/fixtures/csv-images/', location.origin).href;
const open = (csv = 'manifest.csv', extra: Record<string, unknown> = {}) =>
  CsvImageDataset.open({ csvUrl: base + csv, imageBaseUrl: `${base}images/`, ...extra });

describe('CsvImageDataset', () => {
  it('reads the manifest once: length, columns, numeric tabular columns, labels', async () => {
    const ds = await open();
    expect(ds.length).toBe(5);
    expect(ds.columns).toEqual(['id', 'image', 'age', 'marker', 'label']);
    expect(ds.tabularColumns).toEqual(['age', 'marker']);
    expect(ds.classes).toEqual(['0', '1']); // integer labels: classes.length = number of classes
    expect([0, 1, 2, 3, 4].map((i) => ds.label(i))).toEqual([0, 1, 1, 0, 1]);
    expect(ds.imageUrl(2)).toBe(`${base}images/g2.png`);
  });

  it('decodes a grayscale PNG to normalised Float32 pixels with the exact values', async () => {
    const ds = await open();
    for (const i of [0, 3]) {
      const s = await ds.get(i);
      expect(s.image).toBeInstanceOf(Float32Array);
      expect(s.image.length).toBe(64);
      for (let y = 0; y < 8; y++) {
        for (let x = 0; x < 8; x++) {
          expect(s.image[y * 8 + x]).toBeCloseTo(((i * 50 + x * 3 + y * 5) % 256) / 255, 5);
        }
      }
      expect(Array.from(s.tabular)).toEqual([40 + 10 * i, 1.5 + i]);
      expect(s.tabular).toBeInstanceOf(Float32Array);
      expect(s.label).toBe(0);
    }
  });

  it('converts RGB to luminance, or keeps 3 channels when asked', async () => {
    const gray = await (await open()).get(4);
    const p = 10;
    expect(gray.image[p]).toBeCloseTo((0.299 * 200 + 0.587 * 100 + 0.114 * 4 * p) / 255, 4);
    const rgb = await (await open('manifest.csv', { channels: 3 })).get(4);
    expect(rgb.image.length).toBe(64 * 3);
    expect(
      Array.from(rgb.image.subarray(p * 3, p * 3 + 3)).map((v) => Math.round(v * 255)),
    ).toEqual([200, 100, 40]);
  });

  it('resizes to the requested width and height', async () => {
    const s = await (await open('manifest.csv', { width: 4, height: 2 })).get(1);
    expect(s.image.length).toBe(8);
  });

  it('standardises tabular columns with the manifest statistics', async () => {
    const ds = await open('manifest.csv', { standardizeTabular: true });
    expect(Array.from(ds.tabularStats.mean)).toEqual([60, 3.5]);
    const std = Math.sqrt(200);
    expect(ds.tabularStats.std[0]).toBeCloseTo(std, 4);
    const s = await ds.get(0);
    expect(s.tabular[0]).toBeCloseTo((40 - 60) / std, 5);
    expect(s.tabular[1]).toBeCloseTo((1.5 - 3.5) / Math.sqrt(2), 5);
  });

  it('maps text labels to class indices and honours custom columns', async () => {
    const ds = await open('text-labels.csv', { imageColumn: 'file', labelColumn: 'diagnosis' });
    expect(ds.classes).toEqual(['benign', 'malignant']);
    expect(ds.tabularColumns).toEqual(['site']);
    const s = await ds.get(1);
    expect(s.label).toBe(1);
    expect(Array.from(s.tabular)).toEqual([7]);
  });

  it('keeps non-integer labels as numbers with no classes (regression targets)', async () => {
    const ds = await open('regression.csv');
    expect(ds.classes).toEqual([]);
    expect((await ds.get(1)).label).toBe(1.25);
  });

  it('applies the transform with the index', async () => {
    const ds = await open('manifest.csv', {
      transform: (s: { image: Float32Array; label: number }, i: number) => ({
        i,
        mean: s.image.reduce((a, b) => a + b, 0) / s.image.length,
        label: s.label,
      }),
    });
    const t = (await ds.get(1)) as unknown as { i: number; mean: number; label: number };
    expect(t.i).toBe(1);
    expect(t.label).toBe(1);
    expect(t.mean).toBeGreaterThan(0);
  });

  it('fails a missing image with LOAD_FAILED naming the index; other samples still load', async () => {
    const ds = await open('missing-image.csv');
    await expect(ds.get(1)).rejects.toMatchObject({ code: 'LOAD_FAILED', index: 1 });
    await expect(ds.get(1)).rejects.toThrow(/sample 1.*404/);
    expect((await ds.get(0)).image.length).toBe(64);
  });

  it('fails bytes that are not an image with LOAD_FAILED, never returning pixels', async () => {
    const ds = await open('not-an-image.csv');
    await expect(ds.get(0)).rejects.toMatchObject({ code: 'LOAD_FAILED', index: 0 });
  });

  it('rejects an aborted load with the abort reason', async () => {
    const ds = await open();
    const ac = new AbortController();
    ac.abort(new Error('stop'));
    await expect(ds.get(0, { signal: ac.signal })).rejects.toThrow('stop');
    const late = new AbortController();
    const p = ds.get(1, { signal: late.signal });
    late.abort(new Error('late stop'));
    await expect(p).rejects.toThrow('late stop');
  });

  it('reports malformed manifests with CSV_FORMAT naming the row, column or option', async () => {
    await expect(open('bad-number.csv', { tabularColumns: ['age'] })).rejects.toThrow(
      /row 1, column "age": "old" is not a number/,
    );
    await expect(open('manifest.csv', { labelColumn: 'outcome' })).rejects.toBeInstanceOf(
      CsvFormatError,
    );
    await expect(open('manifest.csv', { labelColumn: 'outcome' })).rejects.toThrow(
      /labelColumn "outcome"/,
    );
    await expect(open('manifest.csv', { tabularColumns: ['weight'] })).rejects.toMatchObject({
      code: 'CSV_FORMAT',
    });
  });

  it('fails an unreachable manifest with LOAD_FAILED', async () => {
    await expect(open('does-not-exist.csv')).rejects.toMatchObject({ code: 'LOAD_FAILED' });
  });

  it('rejects bad options and indices with TypeError/RangeError naming them', async () => {
    await expect(CsvImageDataset.open({ csvUrl: '', imageBaseUrl: base } as never)).rejects.toThrow(
      TypeError,
    );
    await expect(CsvImageDataset.open({ csvUrl: 42, imageBaseUrl: base } as never)).rejects.toThrow(
      /csvUrl must be a non-empty string or URL, got 42/,
    );
    await expect(CsvImageDataset.open({ csvUrl: `${base}manifest.csv` } as never)).rejects.toThrow(
      /imageBaseUrl/,
    );
    await expect(open('manifest.csv', { channels: 2 })).rejects.toThrow(
      /channels must be 1 or 3, got 2/,
    );
    await expect(open('manifest.csv', { width: 0 })).rejects.toThrow(RangeError);
    await expect(open('manifest.csv', { transform: 'x' })).rejects.toThrow(
      /transform must be a function/,
    );
    const ds = await open();
    expect(() => ds.get(5)).toThrow(/index 5 is out of range \[0, 5\)/);
    expect(() => ds.get(1.5)).toThrow(RangeError);
  });
});
