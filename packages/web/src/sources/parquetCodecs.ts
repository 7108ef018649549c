import { MedFusionError } from '@medfusion/core';
import { registerErrorClass } from '@medfusion/core/internal';
import type { CompressionCodec, Compressors, FileMetaData } from 'hyparquet';
import { compressors } from 'hyparquet-compressors';

/**
 * The decompressors `ParquetSource` hands to hyparquet: hyparquet-compressors'
 * GZIP, BROTLI, ZSTD, LZ4 (Hadoop framing) and LZ4_RAW, plus hyparquet's own
 * SNAPPY. LZO is the one common codec without a decompressor.
 */
export const parquetCompressors: Compressors = compressors;

/** A Parquet file uses a compression codec nothing here decompresses. Code `UNSUPPORTED_CODEC`. */
export class UnsupportedCodecError extends MedFusionError {
  /** The codec, as the file's metadata names it (e.g. `'LZO'`). */
  readonly codec: string;
  constructor(url: string, codec: string, column: string) {
    super(
      'UNSUPPORTED_CODEC',
      `${url}: column ${column} is compressed with ${codec}, which ParquetSource cannot decompress (supported: UNCOMPRESSED, SNAPPY, GZIP, BROTLI, ZSTD, LZ4, LZ4_RAW)`,
    );
    this.name = 'UnsupportedCodecError';
    this.codec = codec;
  }
}
registerErrorClass('UnsupportedCodecError', UnsupportedCodecError);

/** Throw {@link UnsupportedCodecError} when a chunk of `columns` uses a codec without a decompressor. */
export function checkCodecs(metadata: FileMetaData, columns: readonly string[], url: string): void {
  const wanted = new Set(columns);
  for (const group of metadata.row_groups) {
    for (const chunk of group.columns) {
      const m = chunk.meta_data;
      if (!m || !wanted.has(m.path_in_schema[0] as string)) continue;
      const codec = m.codec as CompressionCodec;
      if (codec !== 'UNCOMPRESSED' && codec !== 'SNAPPY' && !parquetCompressors[codec]) {
        throw new UnsupportedCodecError(url, codec, m.path_in_schema.join('.'));
      }
    }
  }
}
