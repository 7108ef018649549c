import { ParquetSource } from '@medfusion/web';
import { describe, expect, inject, it } from 'vitest';
import { PARQUET, parquetRow } from '../fixtures-shards/fixtures.js';

const { nginx, flaky } = inject('shardServers');
const url = `${nginx}${PARQUET.name}`;
const columns = { image: 'image', tabular: ['age', 'bmi'], label: 'label' };

describe('ParquetSource over range requests (file written by hyparquet-writer)', () => {
  it('maps image, feature and label columns to { image, tabular, label }', async () => {
    const table = await ParquetSource.open({ url, columns });
    expect(table.length).toBe(PARQUET.rows);
    expect(table.rowGroupSizes).toEqual([16, 16, 16, 12]);
    for (const r of [0, 15, 16, 33, 59]) {
      const want = parquetRow(r);
      const got = await table.get(r);
      expect(got.image).toEqual(want.image);
      expect([...got.tabular]).toEqual([Math.fround(want.age), Math.fround(want.bmi)]);
      expect(got.label).toBe(want.label);
    }
    table.close();
  });

  it('reads one row group per group touched, not per row', async () => {
    const table = await ParquetSource.open({ url, columns, rowGroupCache: 2 });
    const before = table.stats().rangeRequests; // size probe + footer
    for (let r = 16; r < 32; r++) await table.get(r);
    expect(table.stats().rowGroupReads).toBe(1);
    expect(table.stats().rangeRequests - before).toBeLessThanOrEqual(2);
    table.close();
  });

  it('reads ahead the row groups of the plan', async () => {
    const table = await ParquetSource.open({ url, columns, rowGroupCache: 3, lookahead: 20 });
    const plan = [...Array(PARQUET.rows).keys()].reverse();
    table.setPlan(plan);
    await table.get(59);
    // Rows 58..40 are in groups 3 and 2: group 2 was requested before being asked for.
    expect(table.stats().rowGroupReads).toBe(2);
    for (const r of plan) expect((await table.get(r)).label).toBe(parquetRow(r).label);
    expect(table.stats().rowGroupReads).toBe(4);
    table.close();
  });

  it('reads the row groups of the plan window in one merged request', async () => {
    const table = await ParquetSource.open({ url, columns, rowGroupCache: 4, lookahead: 64 });
    const atOpen = table.stats().rangeRequests; // size probe + footer
    const plan = [...Array(PARQUET.rows).keys()];
    table.setPlan(plan);
    for (const r of plan) expect((await table.get(r)).image).toEqual(parquetRow(r).image);
    // Group 0 on demand, then groups 1-3 together: 2 requests instead of 4.
    expect(table.stats().rangeRequests - atOpen).toBe(2);
    expect(table.stats().rowGroupReads).toBe(4);
    table.close();
  });

  it('only fetches the configured columns', async () => {
    const labels = await ParquetSource.open({ url, columns: { label: 'label' } });
    let allBytes = 0;
    let labelBytes = 0;
    const counting =
      (add: (n: number) => void): typeof fetch =>
      async (input, init) => {
        const res = await fetch(input, init);
        add(Number(res.headers.get('Content-Length') ?? 0));
        return res;
      };
    const a = await ParquetSource.open({ url, columns, fetch: counting((n) => (allBytes += n)) });
    const l = await ParquetSource.open({
      url,
      columns: { label: 'label' },
      fetch: counting((n) => (labelBytes += n)),
    });
    const a0 = allBytes;
    const l0 = labelBytes;
    await a.get(20);
    await l.get(20);
    expect(labelBytes - l0).toBeLessThan(allBytes - a0);
    expect((await labels.get(20)).image).toHaveLength(0);
    for (const t of [labels, a, l]) t.close();
  });

  it('survives a server that fails 20 % of requests', async () => {
    const table = await ParquetSource.open({
      url: `${flaky}parquet-1/${PARQUET.name}`,
      columns,
      retry: { baseDelayMs: 5, retries: 8 },
    });
    for (let r = 0; r < PARQUET.rows; r += 7)
      expect((await table.get(r)).image).toEqual(parquetRow(r).image);
    table.close();
  });

  it('names unknown columns and bad options', async () => {
    await expect(ParquetSource.open({ url, columns: { label: 'nope' } })).rejects.toThrow(
      /columns.label "nope" is not a column/,
    );
    await expect(ParquetSource.open({ url, columns, rowGroupCache: 0 })).rejects.toThrow(
      /rowGroupCache must be a positive integer, got 0/,
    );
    await expect(
      ParquetSource.open({ url: `${nginx}not-a-tar.tar`, columns }),
    ).rejects.toMatchObject({ code: 'BAD_FORMAT' });
    const table = await ParquetSource.open({ url, columns });
    await expect(table.get(60)).rejects.toThrow(/index 60 is out of range \[0, 60\)/);
    table.close();
    await expect(table.get(0)).rejects.toMatchObject({ code: 'CLOSED' });
  });
});
