import type { AsyncBuffer, ParquetRow } from 'hyparquet';
import type { RangeReader } from '../remote/RangeReader.js';
import { SourceFormatError } from '../remote/RemoteError.js';
import type { ParquetColumns, ParquetSample } from './parquetOptions.js';

// How ParquetSource reads a row group: the byte spans it shares, who waits for a read, the
// file view hyparquet reads through, and a decoded row as a sample.

/** A byte span being read ahead for several row groups. */
export interface Span {
  start: number;
  end: number;
  bytes: Promise<Uint8Array>;
}

/** A row group being read: who waits for it, and how to stop it when nobody does. */
export interface GroupRead {
  controller: AbortController;
  waiters: number;
  /** Read ahead (plan or `prefetch`): never aborted by a caller giving up. */
  pinned: boolean;
  settled: boolean;
}

/** The file as hyparquet reads it: range reads on `signal`, reusing bytes a read-ahead span holds. */
export function rangeFile(
  reader: RangeReader,
  size: number,
  spans: readonly Span[],
  signal: AbortSignal,
): AsyncBuffer {
  return {
    byteLength: size,
    slice: async (start: number, end?: number) => {
      const stop = end ?? size;
      // Bytes a merged read-ahead of several row groups is fetching anyway.
      const span = spans.find((x) => x.start <= start && stop <= x.end);
      const b = span
        ? (await span.bytes).subarray(start - span.start, stop - span.start)
        : await reader.read(start, stop, { signal });
      return b.byteOffset === 0 && b.byteLength === b.buffer.byteLength
        ? (b.buffer as ArrayBuffer)
        : (b.slice().buffer as ArrayBuffer);
    },
  };
}

/** A numeric cell of row `index` as a number (null → NaN); anything else is a typed error naming the file. */
export function toNumber(value: unknown, column: string, index: number, url: string): number {
  if (typeof value === 'number') return value;
  if (typeof value === 'bigint' || typeof value === 'boolean') return Number(value);
  if (value === null || value === undefined) return Number.NaN;
  throw new SourceFormatError(
    `row ${index} of ${url}: column ${column} must be numeric, got ${typeof value}`,
  );
}

/** Row `index` as `{ image, tabular, label }` of the configured `columns`; a typed error naming the file otherwise. */
export function toParquetSample(
  row: ParquetRow,
  c: ParquetColumns,
  index: number,
  url: string,
): ParquetSample {
  let image: Uint8Array = new Uint8Array(0);
  if (c.image) {
    const v = row[c.image] as unknown;
    const bytes = v && typeof v === 'object' && 'bytes' in v ? (v as { bytes: unknown }).bytes : v;
    if (bytes instanceof Uint8Array) image = bytes;
    else if (typeof bytes === 'string') image = new TextEncoder().encode(bytes);
    else if (bytes !== null && bytes !== undefined) {
      throw new SourceFormatError(`row ${index} of ${url}: column ${c.image} holds no bytes`);
    }
  }
  const names = c.tabular ?? [];
  const tabular = new Float32Array(names.length);
  for (let i = 0; i < names.length; i++) {
    const name = names[i] as string;
    tabular[i] = toNumber(row[name], name, index, url);
  }
  const label = c.label ? toNumber(row[c.label], c.label, index, url) : Number.NaN;
  return { image, tabular, label };
}
