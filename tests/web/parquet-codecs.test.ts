// ParquetSource reads every common codec, on files written by an independent writer
// (parquet-wasm, i.e. arrow-rs); a codec without a decompressor fails at open(), naming it.
import { ParquetSource, UnsupportedCodecError } from '@medfusion/web';
import { describe, expect, inject, it } from 'vitest';
import { CODEC_ROWS, codecRow, PARQUET_CODECS } from '../fixtures-shards/parquetCodecRows.js';

const { nginx } = inject('shardServers');
const columns = { tabular: ['id', 'value'], label: 'label' };

describe('ParquetSource: compression codecs', () => {
  for (const codec of PARQUET_CODECS) {
    it(`reads ${codec} pages`, async () => {
      const table = await ParquetSource.open({
        url: `${nginx}codec-${codec.toLowerCase()}.parquet`,
        columns,
      });
      expect(table.length).toBe(CODEC_ROWS);
      for (const r of [0, 17, CODEC_ROWS - 1]) {
        const row = await table.get(r);
        const want = codecRow(r);
        expect([...row.tabular]).toEqual([want.id, want.value]);
        expect(row.label).toBe(want.label);
      }
      table.close();
    });
  }

  it('an unsupported codec (LZO) fails at open with UNSUPPORTED_CODEC naming it', async () => {
    const error = await ParquetSource.open({
      url: `${nginx}codec-lzo.parquet`,
      columns: { label: 'label' },
    }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(UnsupportedCodecError);
    expect(error).toMatchObject({ code: 'UNSUPPORTED_CODEC', codec: 'LZO' });
    expect((error as Error).message).toMatch(/column label is compressed with LZO/);
  });
});
