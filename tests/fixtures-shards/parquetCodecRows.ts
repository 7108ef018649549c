// What the Parquet codec fixtures hold (browser-safe; tests/fixtures-shards/parquetCodecs.ts writes them).

/** Codecs with a fixture `codec-<name>.parquet`. */
export const PARQUET_CODECS = ['SNAPPY', 'GZIP', 'BROTLI', 'ZSTD', 'LZ4_RAW'] as const;
/** Rows in each codec fixture. */
export const CODEC_ROWS = 50;

/** Row `r` of the codec fixtures. */
export function codecRow(r: number): { id: number; value: number; label: number } {
  return { id: r, value: r * 0.5 - 3, label: r % 3 };
}
