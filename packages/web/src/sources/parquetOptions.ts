import type { HttpOptions } from '../remote/RangeReader.js';

/** Which Parquet columns make up a sample. */
export interface ParquetColumns {
  /** Column of encoded image bytes (BYTE_ARRAY, or a `{ bytes }` struct as Hugging Face writes images). */
  image?: string;
  /** Numeric feature columns, in the order of `tabular`. */
  tabular?: readonly string[];
  /** Numeric label column. */
  label?: string;
}

/** One row as `{ image, tabular, label }` (the reference's multimodal sample). */
export interface ParquetSample {
  /** Encoded image bytes (PNG/JPEG...), empty when no image column is configured. */
  image: Uint8Array;
  /** Feature values in `columns.tabular` order. */
  tabular: Float32Array;
  /** The label, NaN when no label column is configured. */
  label: number;
}

/** Options of {@link ParquetSource.open}. */
export interface ParquetSourceOptions<T = ParquetSample> extends HttpOptions {
  /** URL of the Parquet file (any origin that honours `Range`). */
  url: string | URL;
  /** The image, feature and label columns. */
  columns: ParquetColumns;
  /** Maps a sample to what `get` returns (e.g. decode the image). */
  transform?: (sample: ParquetSample, index: number) => T | Promise<T>;
  /**
   * Decoded row groups kept in memory.
   * @default 4
   */
  rowGroupCache?: number;
  /**
   * Rows of the plan looked at ahead; their row groups (up to `rowGroupCache - 1`) are read early.
   * @default 256
   */
  lookahead?: number;
  /** Aborts opening (reading the footer). */
  signal?: AbortSignal;
  /**
   * Rows one row group may claim (a row group is decoded whole, so this bounds the rows in
   * memory at once); a file claiming more is refused at `open` with a `SizeLimitError`
   * (code `SIZE_LIMIT`). Also bounds the values per page of a list column.
   * @default 1048576 (pyarrow's default row group length)
   */
  maxRowGroupRows?: number;
  /**
   * Uncompressed bytes one page may claim; a page claiming more (or more than its codec can
   * expand its stored bytes to) fails its row group with a `SizeLimitError` before anything
   * is allocated for it.
   * @default 134217728 (128 MiB)
   */
  maxPageBytes?: number;
}

/** Counters of a {@link ParquetSource}. */
export interface ParquetStats {
  /** HTTP requests sent (footer and row groups, retries included). */
  rangeRequests: number;
  /** Row groups decoded. */
  rowGroupReads: number;
}
