import { MedFusionError } from '@medfusion/core';
import { registerErrorClass } from '@medfusion/core/internal';
import type { CompressionCodec, Compressors, FileMetaData } from 'hyparquet';

let loading: Promise<Compressors> | undefined;

/**
 * The decompressors `ParquetSource` hands to hyparquet: hyparquet-compressors'
 * GZIP, BROTLI, ZSTD, LZ4 (Hadoop framing) and LZ4_RAW, plus hyparquet's own
 * SNAPPY. LZO is the one common codec without a decompressor. Imported once
 * per realm, when a source first opens: that module compiles WebAssembly as it
 * loads, so on a page whose Content Security Policy refuses WebAssembly an
 * eager import would make the whole package fail to import. There it resolves
 * to none (uncompressed and SNAPPY columns still read; others throw
 * {@link UnsupportedCodecError}).
 */
export function loadParquetCompressors(): Promise<Compressors> {
  loading ??= import('hyparquet-compressors').then(
    (m) => m.compressors,
    (): Compressors => ({}),
  );
  return loading;
}

/** A Parquet file uses a compression codec nothing here decompresses. Code `UNSUPPORTED_CODEC`. */
export class UnsupportedCodecError extends MedFusionError {
  /** The codec, as the file's metadata names it (e.g. `'LZO'`). */
  readonly codec: string;
  /**
   * @param reason Why it cannot, when not because the codec is unsupported
   * (the decompressors could not load here).
   */
  constructor(url: string, codec: string, column: string, reason?: string) {
    super(
      'UNSUPPORTED_CODEC',
      `${url}: column ${column} is compressed with ${codec}, which ParquetSource cannot decompress (${reason ?? 'supported: UNCOMPRESSED, SNAPPY, GZIP, BROTLI, ZSTD, LZ4, LZ4_RAW'})`,
    );
    this.name = 'UnsupportedCodecError';
    this.codec = codec;
  }
}
registerErrorClass('UnsupportedCodecError', UnsupportedCodecError);

/**
 * Throw {@link UnsupportedCodecError} when a chunk of `columns` uses a codec
 * without a decompressor in `compressors`.
 */
export function checkCodecs(
  metadata: FileMetaData,
  columns: readonly string[],
  url: string,
  compressors: Compressors,
): void {
  const wanted = new Set(columns);
  for (const group of metadata.row_groups) {
    for (const chunk of group.columns) {
      const m = chunk.meta_data;
      if (!m || !wanted.has(m.path_in_schema[0] as string)) continue;
      const codec = m.codec as CompressionCodec;
      if (codec !== 'UNCOMPRESSED' && codec !== 'SNAPPY' && !compressors[codec]) {
        const unloaded = Object.keys(compressors).length === 0;
        throw new UnsupportedCodecError(
          url,
          codec,
          m.path_in_schema.join('.'),
          unloaded
            ? 'its decompressors could not load here: WebAssembly is refused, e.g. by the page’s Content Security Policy without wasm-unsafe-eval'
            : undefined,
        );
      }
    }
  }
}
