/**
 * Parquet files in every common codec, written by an independent writer
 * (parquet-wasm: the Rust arrow-rs `parquet` crate, fed by apache-arrow), and
 * one LZO-labelled file from hyparquet-writer (no JS writer compresses LZO;
 * its pages are stored as is, enough for the open-time codec check).
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { tableFromArrays, tableToIPC } from 'apache-arrow';
import { parquetWriteBuffer } from 'hyparquet-writer';
import { Compression, Table, WriterPropertiesBuilder, writeParquet } from 'parquet-wasm/node';
import { CODEC_ROWS, codecRow, PARQUET_CODECS } from './parquetCodecRows.js';

export function writeParquetCodecFixtures(dir: string): void {
  const rows = Array.from({ length: CODEC_ROWS }, (_, r) => codecRow(r));
  const arrow = tableFromArrays({
    id: Int32Array.from(rows, (r) => r.id),
    value: Float64Array.from(rows, (r) => r.value),
    label: Int32Array.from(rows, (r) => r.label),
  });
  for (const codec of PARQUET_CODECS) {
    const table = Table.fromIPCStream(tableToIPC(arrow, 'stream'));
    const props = new WriterPropertiesBuilder().setCompression(Compression[codec]).build();
    writeFileSync(join(dir, `codec-${codec.toLowerCase()}.parquet`), writeParquet(table, props));
  }
  const lzo = parquetWriteBuffer({
    columnData: [{ name: 'label', data: rows.map((r) => r.label), type: 'INT32', codec: 'LZO' }],
    compressors: { LZO: (bytes: Uint8Array) => bytes },
  });
  writeFileSync(join(dir, 'codec-lzo.parquet'), new Uint8Array(lzo));
}
