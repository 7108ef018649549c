// Hostile data, items 6 and 10 (Parquet): sizes a file claims — row-group row counts,
// page-header sizes and value counts — are checked against the real bytes and the
// documented caps (maxRowGroupRows, maxPageBytes) before hyparquet allocates anything,
// and every failure is a typed error naming the file (SIZE_LIMIT or BAD_FORMAT), never
// a bare `RangeError: Invalid array length`. Memory: the process's peak resident set
// (process.resourceUsage().maxRSS, which counts ArrayBuffers too) must not grow by more
// than 64 MB while a hostile file is read; without the checks a claim of 10^9 rows or a
// 2^31-byte page costs about 1-2 GB.
import { MedFusionError, ParquetSource, SizeLimitError, SourceFormatError } from '@medfusion/web';
import { describe, expect, it } from 'vitest';
import {
  servingFetch,
  validParquet,
  withPageHeader,
  withRowGroupRows,
} from './fixtures/hostileParquet.js';
import { bounded, report, seeded } from './harness.js';

const columns = { image: 'image', tabular: ['age'], label: 'label' };
const MB = 2 ** 20;

const open = (bytes: Uint8Array, name: string, extra: Record<string, unknown> = {}) =>
  ParquetSource.open({
    url: `https://data.example/${name}`,
    fetch: servingFetch(bytes),
    columns,
    ...extra,
  });

/** Run `work`, returning its error, time and the growth of the peak RSS and heap in MB. */
async function measured(label: string, ms: number, work: () => Promise<unknown>) {
  const rss0 = process.resourceUsage().maxRSS * 1024;
  const mem0 = process.memoryUsage();
  let error: unknown;
  const { ms: took } = await bounded(label, ms, async () => {
    try {
      await work();
    } catch (e) {
      error = e;
    }
  });
  const mem1 = process.memoryUsage();
  return {
    error,
    ms: took,
    peakRssMB: (process.resourceUsage().maxRSS * 1024 - rss0) / MB,
    heapMB: (mem1.heapUsed + mem1.arrayBuffers - mem0.heapUsed - mem0.arrayBuffers) / MB,
  };
}

describe('hostile Parquet files', () => {
  it('a 1 KB file whose row group claims 10^9 rows is refused at open, before any decoding', async (ctx) => {
    const file = withRowGroupRows(validParquet(), 10n ** 9n);
    const m = await measured('open', 2_000, () => open(file, 'billion.parquet'));
    expect(m.error).toBeInstanceOf(SizeLimitError);
    expect(m.error).toMatchObject({ code: 'SIZE_LIMIT', claimed: 1e9, allowed: 2 ** 20 });
    expect(String((m.error as Error).message)).toBe(
      'row group 0 of https://data.example/billion.parquet claims 1,000,000,000 rows, more than maxRowGroupRows 1,048,576',
    );
    expect(m.peakRssMB).toBeLessThan(64);
    report(ctx.task, {
      scenario: 'hostile inputs',
      case: `Parquet row group claims 10^9 rows (${file.length} B file)`,
      figures: { ms: Math.round(m.ms), peakRssGrowthMB: Math.round(m.peakRssMB) },
    });
  });

  it('a row group claiming more rows than its pages hold is refused before hyparquet builds them', async () => {
    const file = withRowGroupRows(validParquet(12), 1_000_000n); // under the cap, 12 real rows
    const table = await open(file, 'padded.parquet');
    const m = await measured('get', 2_000, () => table.get(0));
    expect(m.error).toBeInstanceOf(SizeLimitError);
    expect(String((m.error as Error).message)).toMatch(
      /^row group 0 of https:\/\/data\.example\/padded\.parquet claims 1,000,000 rows, more than the values its column \w+ holds \(12\)$/,
    );
    expect(m.peakRssMB).toBeLessThan(64);
    // The cap is an option: a caller who expects bigger groups can say so.
    await expect(
      open(withRowGroupRows(validParquet(), 2_000_000n), 'big.parquet', { maxRowGroupRows: 1e7 }),
    ).resolves.toBeInstanceOf(ParquetSource);
  });

  it('a page header claiming 2^31 uncompressed bytes fails its row group without allocating them', async (ctx) => {
    const file = withPageHeader(validParquet(), 'age', (h) => {
      h.field_2 = 2 ** 31 - 1;
    });
    const table = await open(file, 'bomb.parquet');
    const m = await measured('get', 2_000, () => table.get(0));
    expect(m.error).toBeInstanceOf(SizeLimitError);
    expect(String((m.error as Error).message)).toMatch(
      /^page 0 of column age in row group 0 of https:\/\/data\.example\/bomb\.parquet \(uncompressed\) claims 2,147,483,647 bytes, more than what \d+ Snappy bytes expand to \([\d,]+\)$/,
    );
    expect(m.peakRssMB).toBeLessThan(64);
    // Within what Snappy could expand to, the cap still holds.
    const capped = await open(file, 'bomb.parquet', { maxPageBytes: 64 });
    const small = withPageHeader(validParquet(), 'age', () => {});
    await expect((await open(small, 'ok.parquet', { maxPageBytes: 64 })).get(0)).rejects.toThrow(
      /more than maxPageBytes 64/,
    );
    capped.close();
    report(ctx.task, {
      scenario: 'hostile inputs',
      case: 'Parquet page header claims 2^31 bytes uncompressed',
      figures: { ms: Math.round(m.ms), peakRssGrowthMB: Math.round(m.peakRssMB) },
    });
  });

  for (const [what, edit, pattern] of [
    [
      'a compressed size past its column chunk',
      (h: Record<string, unknown>) => {
        h.field_3 = 2 ** 30;
      },
      /claims 1,073,741,824 bytes, more than the bytes left in its column chunk/,
    ],
    [
      'a value count of 2^30',
      (h: Record<string, unknown>) => {
        const v2 = h.field_8 as Record<string, unknown>;
        v2.field_1 = 2 ** 30;
      },
      /claims 1,073,741,824 values, more than the rows of its row group \(12\)/,
    ],
    [
      'a row count of 2^30',
      (h: Record<string, unknown>) => {
        const v2 = h.field_8 as Record<string, unknown>;
        v2.field_3 = 2 ** 30;
      },
      /\(rows\) claims 1,073,741,824 rows, more than the rows of its row group \(12\)/,
    ],
  ] as const) {
    it(`a page header with ${what} is a SizeLimitError naming the file`, async () => {
      const table = await open(withPageHeader(validParquet(), 'age', edit), 'h.parquet');
      const m = await measured('get', 2_000, () => table.get(0));
      expect(m.error).toBeInstanceOf(SizeLimitError);
      expect(String((m.error as Error).message)).toMatch(/https:\/\/data\.example\/h\.parquet/);
      expect(String((m.error as Error).message)).toMatch(pattern);
      expect(m.peakRssMB).toBeLessThan(64);
    });
  }

  it('damaged bytes anywhere give typed errors naming the file, never an untyped parser error', async (ctx) => {
    const good = validParquet();
    const random = seeded(6);
    let opened = 0;
    let rejected = 0;
    const m = await measured('damage sweep', 30_000, async () => {
      for (let k = 0; k < 400; k++) {
        const bad = good.slice();
        // Half the damage in the footer (the last ~40 %), half anywhere.
        const at =
          k % 2 ? Math.floor(random() * bad.length) : bad.length - 1 - Math.floor(random() * 400);
        bad[at] = Math.floor(random() * 256);
        const url = `https://data.example/damaged-${k}.parquet`;
        try {
          const table = await ParquetSource.open({ url, fetch: servingFetch(bad), columns });
          opened++;
          for (let r = 0; r < table.length; r += 5) await table.get(r);
        } catch (error) {
          rejected++;
          expect(String((error as Error).message), `damage at ${at}`).toContain(url);
          // A damaged column name: the documented RangeError naming the option and file.
          if (
            error instanceof RangeError &&
            /^columns\.[\w[\]]+ "\w+" is not a column of /.test(error.message)
          )
            continue;
          expect(error, `damage at ${at}`).toBeInstanceOf(MedFusionError);
          expect((error as MedFusionError).code).toMatch(
            /^(BAD_FORMAT|SIZE_LIMIT|UNSUPPORTED_CODEC)$/,
          );
        }
      }
    });
    expect(m.error).toBeUndefined(); // an assertion failing inside the sweep
    expect(opened + rejected).toBeGreaterThanOrEqual(400);
    expect(rejected).toBeGreaterThan(10);
    expect(m.peakRssMB).toBeLessThan(64);
    report(ctx.task, {
      scenario: 'hostile inputs',
      case: 'Parquet with one damaged byte (400 variants)',
      figures: { opened, rejected, ms: Math.round(m.ms), peakRssGrowthMB: Math.round(m.peakRssMB) },
    });
  });

  it('a file that is not Parquet is a SourceFormatError naming it', async () => {
    const bytes = new TextEncoder().encode('<!doctype html><title>index</title>'.repeat(20));
    await expect(open(bytes, 'index.html')).rejects.toThrow(SourceFormatError);
    await expect(open(bytes, 'index.html')).rejects.toThrow(
      /^https:\/\/data\.example\/index\.html is not a Parquet file/,
    );
  });
});
