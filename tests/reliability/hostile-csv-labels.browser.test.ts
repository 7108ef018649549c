// Hostile data, item 1: one bad label never renumbers the others. A manifest with
// numeric labels and a few missing or unreadable ones keeps every good row's label
// as written; the bad rows are listed, and their `get` rejects with CSV_FORMAT
// naming the row, so the DataLoader's onError policy can leave them out.
import { DataLoader } from '@medfusion/core';
import { CsvFormatError, CsvImageDataset } from '@medfusion/web';
import { describe, expect, it } from 'vitest';
import { bounded, report } from './harness.js';

const images = new URL('/tests/web/fixtures/csv-images/images/', location.origin).href;

function manifestUrl(rows: string[]): string {
  const csv = ['image,age,label', ...rows].join('\n');
  return URL.createObjectURL(new Blob([csv], { type: 'text/csv' }));
}

const open = (rows: string[], extra: Record<string, unknown> = {}) =>
  CsvImageDataset.open({ csvUrl: manifestUrl(rows), imageBaseUrl: images, ...extra });

describe('hostile CSV labels', () => {
  for (const bad of ['n/a', '', 'NaN', 'unknown']) {
    it(`a ${JSON.stringify(bad)} label leaves the numeric labels of every other row unchanged`, async (ctx) => {
      const labels = ['2', '0', bad, '1', '2', '0'];
      const ds = await open(labels.map((l, i) => `g${i % 4}.png,${40 + i},${l}`));
      expect(ds.length).toBe(6);
      expect(ds.classes).toEqual(['0', '1', '2']);
      for (const i of [0, 1, 3, 4, 5]) expect(ds.label(i)).toBe(Number(labels[i]));
      expect((await ds.get(0)).label).toBe(2);
      expect(ds.invalidRows.map((r) => [r.index, r.column, r.value])).toEqual([[2, 'label', bad]]);
      expect(() => ds.label(2)).toThrow(CsvFormatError);
      await expect(ds.get(2)).rejects.toMatchObject({ code: 'CSV_FORMAT', index: 2 });
      await expect(ds.get(2)).rejects.toThrow(/row 2, column "label"/);
      report(ctx.task, {
        scenario: 'hostile inputs',
        case: `CSV label ${JSON.stringify(bad)} among numbers`,
        figures: { goodRowsUnchanged: 5, invalidRows: ds.invalidRows.length },
      });
    });
  }

  it('the DataLoader with onError "skip" trains on the good rows and reports the bad one', async () => {
    const ds = await open(['g0.png,1,1', 'g1.png,2,n/a', 'g2.png,3,0', 'g3.png,4,1']);
    const loader = new DataLoader(ds, { batchSize: 4, onError: 'skip' });
    const { value: batches } = await bounded('one epoch', 20_000, async () => {
      const out = [];
      for await (const b of loader) out.push(b);
      return out;
    });
    const labels = batches.flatMap((b) =>
      Array.from((b.label as { data: ArrayLike<number> }).data),
    );
    expect(labels).toEqual([1, 0, 1]);
    expect(loader.failures.map((f) => f.index)).toEqual([1]);
    expect(loader.failures[0]?.cause).toBeInstanceOf(CsvFormatError);
  });

  it('text labels stay classes by first appearance; a missing one is an invalid row, not a class', async () => {
    const ds = await open([
      'g0.png,1,benign',
      'g1.png,2,',
      'g2.png,3,malignant',
      'g3.png,4,benign',
    ]);
    expect(ds.classes).toEqual(['benign', 'malignant']);
    expect([0, 2, 3].map((i) => ds.label(i))).toEqual([0, 1, 0]);
    expect(ds.invalidRows.map((r) => r.index)).toEqual([1]);
  });

  it('labelType forces the reading; a bad labelType is a RangeError, a bad missingValues a TypeError', async () => {
    const ds = await open(['g0.png,1,3', 'g1.png,2,x', 'g2.png,3,y'], { labelType: 'number' });
    expect(ds.label(0)).toBe(3);
    expect(ds.invalidRows.map((r) => r.index)).toEqual([1, 2]);
    const text = await open(['g0.png,1,3', 'g1.png,2,x'], { labelType: 'class' });
    expect(text.classes).toEqual(['3', 'x']);
    const bad = open(['g0.png,1,1'], { labelType: 'int' });
    await expect(bad).rejects.toThrow(RangeError);
    await expect(bad).rejects.toThrow(
      /labelType must be one of 'auto', 'number', 'class', got "int"/,
    );
    await expect(open(['g0.png,1,1'], { missingValues: 'n/a' })).rejects.toThrow(TypeError);
  });
});
