import {
  ClosedError,
  type Dataset,
  type GetOptions,
  mergeRanges,
  type PlanAware,
} from '@medfusion/core';
import { checkPlan, findInPlan, raceAbort } from '@medfusion/core/internal';
import {
  type AsyncBuffer,
  type FileMetaData,
  type ParquetRow,
  parquetMetadataAsync,
  parquetReadObjects,
} from 'hyparquet';
import { RangeReader } from '../remote/RangeReader.js';
import { SourceFormatError } from '../remote/RemoteError.js';
import { locationHref, resolveUrl } from '../remote/resolveUrl.js';
import { checkCodecs, parquetCompressors } from './parquetCodecs.js';
import type {
  ParquetColumns,
  ParquetSample,
  ParquetSourceOptions,
  ParquetStats,
} from './parquetOptions.js';

/** A byte span being read ahead for several row groups. */
interface Span {
  start: number;
  end: number;
  bytes: Promise<Uint8Array>;
}

function toNumber(value: unknown, column: string, index: number): number {
  if (typeof value === 'number') return value;
  if (typeof value === 'bigint' || typeof value === 'boolean') return Number(value);
  if (value === null || value === undefined) return Number.NaN;
  throw new SourceFormatError(
    `row ${index}: column ${column} must be numeric, got ${typeof value}`,
  );
}

/**
 * A Parquet file over HTTP range requests, as a random-access
 * {@link Dataset} built on hyparquet: the footer is read once, then each
 * `get` reads (and caches) only the row group holding that row, and only the
 * configured columns, with one merged range request per row group. Given the
 * plan, it reads the row groups of the next `lookahead` rows early.
 *
 * @example
 * const table = await ParquetSource.open({
 *   url: 'https://huggingface.co/datasets/org/set/resolve/main/data/train-00000-of-00001.parquet',
 *   columns: { image: 'image', tabular: ['age', 'bmi'], label: 'label' },
 * });
 * const { image, tabular, label } = await table.get(0);
 */
export class ParquetSource<T = ParquetSample> implements Dataset<T>, PlanAware {
  /** Number of rows. */
  readonly length: number;
  /** Rows per row group, in file order. */
  readonly rowGroupSizes: readonly number[];
  private readonly groupStarts: number[];
  private readonly file: AsyncBuffer;
  private readonly metadata: FileMetaData;
  private readonly reader: RangeReader;
  private readonly columns: ParquetColumns;
  private readonly readColumns: string[];
  private readonly transform: ParquetSourceOptions<T>['transform'];
  private readonly cacheSize: number;
  private readonly lookahead: number;
  private readonly groups = new Map<number, Promise<ParquetRow[]>>();
  private plan: Uint32Array | undefined;
  private cursor = 0;
  private closed = false;
  private groupReads = 0;

  private constructor(
    reader: RangeReader,
    file: AsyncBuffer,
    metadata: FileMetaData,
    options: ParquetSourceOptions<T>,
    cacheSize: number,
    lookahead: number,
  ) {
    this.reader = reader;
    this.file = file;
    this.metadata = metadata;
    this.columns = options.columns;
    this.transform = options.transform;
    this.cacheSize = cacheSize;
    this.lookahead = lookahead;
    this.rowGroupSizes = metadata.row_groups.map((g) => Number(g.num_rows));
    this.groupStarts = [];
    let total = 0;
    for (const n of this.rowGroupSizes) {
      this.groupStarts.push(total);
      total += n;
    }
    this.length = total;
    const c = options.columns;
    this.readColumns = [
      ...(c.image ? [c.image] : []),
      ...(c.tabular ?? []),
      ...(c.label ? [c.label] : []),
    ];
  }

  /** Read the footer and check that the configured columns exist. */
  static async open<T = ParquetSample>(
    options: ParquetSourceOptions<T>,
  ): Promise<ParquetSource<T>> {
    if (options === null || typeof options !== 'object') {
      throw new TypeError(`options must be an object with url and columns, got ${String(options)}`);
    }
    const columns = options.columns;
    if (columns === null || typeof columns !== 'object') {
      throw new TypeError(
        `columns must be an object like { image, tabular, label }, got ${String(columns)}`,
      );
    }
    if (columns.tabular !== undefined && !Array.isArray(columns.tabular)) {
      throw new TypeError(
        `columns.tabular must be an array of column names, got ${String(columns.tabular)}`,
      );
    }
    const cacheSize = options.rowGroupCache ?? 4;
    if (!Number.isInteger(cacheSize) || cacheSize < 1) {
      throw new RangeError(`rowGroupCache must be a positive integer, got ${String(cacheSize)}`);
    }
    const lookahead = options.lookahead ?? 256;
    if (!Number.isInteger(lookahead) || lookahead < 1) {
      throw new RangeError(`lookahead must be a positive integer, got ${String(lookahead)}`);
    }
    const url = resolveUrl('url', options.url, locationHref());
    const reader = new RangeReader({
      url,
      fetch: options.fetch,
      limiter: options.limiter,
      retry: options.retry,
      headers: options.headers,
    });
    const closer = new AbortController();
    const { size } = await reader.probe({ signal: options.signal });
    const spans: Span[] = [];
    const file: AsyncBuffer = {
      byteLength: size,
      slice: async (start: number, end?: number) => {
        const stop = end ?? size;
        // Bytes a merged read-ahead of several row groups is fetching anyway.
        const span = spans.find((x) => x.start <= start && stop <= x.end);
        const b = span
          ? (await span.bytes).subarray(start - span.start, stop - span.start)
          : await reader.read(start, stop, { signal: closer.signal });
        return b.byteOffset === 0 && b.byteLength === b.buffer.byteLength
          ? (b.buffer as ArrayBuffer)
          : (b.slice().buffer as ArrayBuffer);
      },
    };
    let metadata: FileMetaData;
    try {
      metadata = await raceAbort(parquetMetadataAsync(file), options.signal);
    } catch (error) {
      if (
        error instanceof Error &&
        !(error instanceof SourceFormatError) &&
        /parquet/i.test(error.message)
      ) {
        throw new SourceFormatError(`${url} is not a Parquet file: ${error.message}`, {
          cause: error,
        });
      }
      throw error;
    }
    const names = new Set(metadata.schema.slice(1).map((e) => e.name));
    for (const [role, name] of [
      ['image', columns.image],
      ['label', columns.label],
      ...(columns.tabular ?? []).map((n, i) => [`tabular[${i}]`, n]),
    ] as [string, string | undefined][]) {
      if (name !== undefined && !names.has(name)) {
        throw new RangeError(
          `columns.${role} ${JSON.stringify(name)} is not a column of ${url} (has ${[...names].join(', ')})`,
        );
      }
    }
    const source = new ParquetSource<T>(reader, file, metadata, options, cacheSize, lookahead);
    checkCodecs(metadata, source.readColumns, url);
    source.closer = closer;
    source.spans = spans;
    return source;
  }

  private closer = new AbortController();
  private spans: Span[] = [];

  /** Counters for monitoring and tests. */
  stats(): ParquetStats {
    return { rangeRequests: this.reader.requests, rowGroupReads: this.groupReads };
  }

  /** The row group holding row `index`. */
  rowGroupOf(index: number): number {
    let lo = 0;
    let hi = this.groupStarts.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >>> 1;
      if ((this.groupStarts[mid] as number) <= index) lo = mid;
      else hi = mid - 1;
    }
    return lo;
  }

  /** Load row `index` as `{ image, tabular, label }` (or the transform's result). */
  async get(index: number, opts?: GetOptions): Promise<T> {
    if (!Number.isInteger(index) || index < 0 || index >= this.length) {
      throw new RangeError(`index ${String(index)} is out of range [0, ${this.length})`);
    }
    if (this.closed) throw new ClosedError('ParquetSource');
    const g = this.rowGroupOf(index);
    const rows = this.rowGroup(g);
    this.advance(index);
    const row = (await raceAbort(rows, opts?.signal))[
      index - (this.groupStarts[g] as number)
    ] as ParquetRow;
    const sample = this.toSample(row, index);
    return this.transform ? this.transform(sample, index) : (sample as unknown as T);
  }

  /** Hand over the coming access order; row groups of the next `lookahead` rows are read early. */
  setPlan(order: ArrayLike<number>): void {
    this.plan = checkPlan(order, this.length);
    this.cursor = 0;
  }

  /** Start reading the row groups holding `indices` (up to the cache size). */
  prefetch(indices: ArrayLike<number>): void {
    if (this.closed) throw new ClosedError('ParquetSource');
    const wanted: number[] = [];
    for (let i = 0; i < indices.length && wanted.length < this.cacheSize; i++) {
      const idx = indices[i] as number;
      if (!Number.isInteger(idx) || idx < 0 || idx >= this.length) {
        throw new RangeError(`indices[${i}] ${String(idx)} is out of range [0, ${this.length})`);
      }
      const g = this.rowGroupOf(idx);
      if (!wanted.includes(g)) wanted.push(g);
    }
    this.readAhead(wanted.filter((g) => !this.groups.has(g)));
  }

  /** Abort reads in flight and drop cached row groups; later `get`s throw `CLOSED`. */
  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.closer.abort(new ClosedError('ParquetSource'));
    this.groups.clear();
    this.spans.length = 0;
  }

  private advance(index: number): void {
    const plan = this.plan;
    if (!plan) return;
    const p = findInPlan(plan, index, this.cursor, this.cursor + this.lookahead * 4);
    if (p < 0) return;
    this.cursor = p + 1;
    const upcoming: number[] = [];
    const end = Math.min(plan.length, p + this.lookahead);
    for (let q = p + 1; q < end && upcoming.length < this.cacheSize - 1; q++) {
      const g = this.rowGroupOf(plan[q] as number);
      if (!upcoming.includes(g) && g !== this.rowGroupOf(index)) upcoming.push(g);
    }
    // Cached groups the window needs are touched (kept from eviction); the rest read ahead.
    for (const g of upcoming) if (this.groups.has(g)) void this.rowGroup(g);
    this.readAhead(upcoming.filter((g) => !this.groups.has(g)));
  }

  /** Bytes of the configured columns in row group `g`: `[start, end)`. */
  private groupSpan(g: number): { start: number; end: number } {
    const wanted = new Set(this.readColumns);
    let start = Number.POSITIVE_INFINITY;
    let end = 0;
    for (const chunk of (this.metadata.row_groups[g] as FileMetaData['row_groups'][number])
      .columns) {
      const m = chunk.meta_data;
      if (!m || !wanted.has(m.path_in_schema[0] as string)) continue;
      const from = Number(m.dictionary_page_offset ?? m.data_page_offset);
      start = Math.min(start, from);
      end = Math.max(end, from + Number(m.total_compressed_size));
    }
    return { start: Number.isFinite(start) ? start : 0, end };
  }

  /** Read the column bytes of `groups` in merged requests, then decode each group from them. */
  private readAhead(groups: number[]): void {
    if (groups.length === 0) return;
    const ranges = groups.map((g) => ({ g, ...this.groupSpan(g) })).filter((r) => r.end > r.start);
    for (const m of mergeRanges(ranges, { maxGap: 65536, maxRequestBytes: 32 << 20 })) {
      const span: Span = {
        start: m.start,
        end: m.end,
        bytes: this.reader.read(m.start, m.end, { signal: this.closer.signal }),
      };
      span.bytes.catch(() => {});
      this.spans.push(span);
      const decoded = m.parts.map((part) => this.rowGroup(part.g).catch(() => {}));
      void Promise.all(decoded).then(() => {
        const i = this.spans.indexOf(span);
        if (i >= 0) this.spans.splice(i, 1);
      });
    }
  }

  private rowGroup(g: number): Promise<ParquetRow[]> {
    let rows = this.groups.get(g);
    if (rows) {
      this.groups.delete(g);
      this.groups.set(g, rows);
      return rows;
    }
    const start = this.groupStarts[g] as number;
    this.groupReads++;
    rows = parquetReadObjects({
      file: this.file,
      metadata: this.metadata,
      columns: this.readColumns,
      rowStart: start,
      rowEnd: start + (this.rowGroupSizes[g] as number),
      utf8: false,
      compressors: parquetCompressors,
    });
    const entry = rows;
    entry.catch(() => {
      if (this.groups.get(g) === entry) this.groups.delete(g);
    });
    this.groups.set(g, entry);
    while (this.groups.size > this.cacheSize) {
      const oldest = this.groups.keys().next().value as number;
      this.groups.delete(oldest);
    }
    return entry;
  }

  private toSample(row: ParquetRow, index: number): ParquetSample {
    const c = this.columns;
    let image: Uint8Array = new Uint8Array(0);
    if (c.image) {
      const v = row[c.image] as unknown;
      const bytes =
        v && typeof v === 'object' && 'bytes' in v ? (v as { bytes: unknown }).bytes : v;
      if (bytes instanceof Uint8Array) image = bytes;
      else if (typeof bytes === 'string') image = new TextEncoder().encode(bytes);
      else if (bytes !== null && bytes !== undefined) {
        throw new SourceFormatError(`row ${index}: column ${c.image} holds no bytes`);
      }
    }
    const names = c.tabular ?? [];
    const tabular = new Float32Array(names.length);
    for (let i = 0; i < names.length; i++) {
      const name = names[i] as string;
      tabular[i] = toNumber(row[name], name, index);
    }
    const label = c.label ? toNumber(row[c.label], c.label, index) : Number.NaN;
    return { image, tabular, label };
  }
}
