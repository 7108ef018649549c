import {
  ClosedError,
  type Dataset,
  type EpochPlan,
  type GetOptions,
  mergeRanges,
  type PlanAware,
  type PlanInput,
} from '@medfusion/core';
import {
  abortReason,
  index as checkIndex,
  findInPlan,
  raceAbort,
  toEpochPlan,
} from '@medfusion/core/internal';
import {
  type AsyncBuffer,
  type Compressors,
  type FileMetaData,
  type ParquetRow,
  parquetMetadataAsync,
  parquetReadObjects,
} from 'hyparquet';
import { httpOptionsOf, RangeReader } from '../remote/RangeReader.js';
import { locationHref, resolveUrl } from '../remote/resolveUrl.js';
import {
  checkParquetMetadata,
  checkRowGroupPages,
  chunkColumn,
  chunkRange,
  formatError,
  type ParquetLimits,
} from './parquetChecks.js';
import { checkCodecs, loadParquetCompressors } from './parquetCodecs.js';
import { checkColumnNames, checkParquetOptions } from './parquetOpenChecks.js';
import type {
  ParquetColumns,
  ParquetSample,
  ParquetSourceOptions,
  ParquetStats,
} from './parquetOptions.js';
import { type GroupRead, rangeFile, type Span, toParquetSample } from './parquetRead.js';

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
  private readonly url: string;
  private readonly limits: ParquetLimits;
  private readonly groups = new Map<number, Promise<ParquetRow[]>>();
  private readonly inFlight = new Map<number, GroupRead>();
  private plan: EpochPlan | undefined;
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
    url: string,
    limits: ParquetLimits,
  ) {
    this.url = url;
    this.limits = limits;
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
    const { columns, cacheSize, lookahead, limits } = checkParquetOptions(options);
    const url = resolveUrl('url', options.url, locationHref());
    const reader = new RangeReader({ ...httpOptionsOf(options), url });
    const closer = new AbortController();
    const { size } = await reader.probe({ signal: options.signal });
    const spans: Span[] = [];
    const file = rangeFile(reader, size, spans, closer.signal);
    let metadata: FileMetaData;
    try {
      metadata = await raceAbort(parquetMetadataAsync(file), options.signal);
    } catch (error) {
      throw formatError(error, `${url} is not a Parquet file`);
    }
    checkColumnNames(metadata, columns, url);
    checkParquetMetadata(
      metadata,
      url,
      size,
      new Set(
        [columns.image, columns.label, ...(columns.tabular ?? [])].filter((c): c is string => !!c),
      ),
      limits,
    );
    const source = new ParquetSource<T>(
      reader,
      file,
      metadata,
      options,
      cacheSize,
      lookahead,
      url,
      limits,
    );
    source.compressors = await loadParquetCompressors();
    checkCodecs(metadata, source.readColumns, url, source.compressors);
    source.closer = closer;
    source.spans = spans;
    return source;
  }

  private closer = new AbortController();
  private spans: Span[] = [];
  /** The decompressors (loaded by open). */
  private compressors: Compressors = {};

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
    checkIndex(index, this.length);
    if (this.closed) throw new ClosedError('ParquetSource');
    const g = this.rowGroupOf(index);
    const rows = this.rowGroup(g, false);
    this.advance(index);
    const row = (await this.waitFor(g, rows, opts?.signal))[
      index - (this.groupStarts[g] as number)
    ] as ParquetRow;
    const sample = toParquetSample(row, this.columns, index, this.url);
    return this.transform ? this.transform(sample, index) : (sample as unknown as T);
  }

  /** Hand over the coming access order; row groups of the next `lookahead` rows are read early. */
  setPlan(order: PlanInput): void {
    this.plan = toEpochPlan(order, this.length);
    this.cursor = 0;
  }

  /** Start reading the row groups holding `indices` (up to the cache size). */
  prefetch(indices: ArrayLike<number>): void {
    if (this.closed) throw new ClosedError('ParquetSource');
    const wanted: number[] = [];
    for (let i = 0; i < indices.length && wanted.length < this.cacheSize; i++) {
      const idx = indices[i] as number;
      checkIndex(idx, this.length, `indices[${i}]`);
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
      const g = this.rowGroupOf(plan.indexAt(q));
      if (!upcoming.includes(g) && g !== this.rowGroupOf(index)) upcoming.push(g);
    }
    // Cached groups the window needs are touched (kept from eviction); the rest read ahead.
    for (const g of upcoming) if (this.groups.has(g)) void this.rowGroup(g, true);
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
      if (!m || !wanted.has(chunkColumn(m))) continue;
      const range = chunkRange(m);
      start = Math.min(start, range.start);
      end = Math.max(end, range.end);
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
      const decoded = m.parts.map((part) => this.rowGroup(part.g, true).catch(() => {}));
      void Promise.all(decoded).then(() => {
        const i = this.spans.indexOf(span);
        if (i >= 0) this.spans.splice(i, 1);
      });
    }
  }

  /**
   * Wait for row group `g` on behalf of one caller. When every caller of a group read
   * for them alone (not read ahead) has given up, the read is aborted: its requests stop
   * and free their per-origin slots.
   */
  private waitFor(
    g: number,
    rows: Promise<ParquetRow[]>,
    signal: AbortSignal | undefined,
  ): Promise<ParquetRow[]> {
    const read = this.inFlight.get(g);
    if (!signal || !read || read.settled) return raceAbort(rows, signal);
    read.waiters++;
    const waiting = raceAbort(rows, signal);
    waiting.then(
      () => read.waiters--,
      () => {
        read.waiters--;
        if (signal.aborted && read.waiters === 0 && !read.pinned && !read.settled) {
          read.controller.abort(abortReason(signal));
        }
      },
    );
    return waiting;
  }

  private rowGroup(g: number, pinned: boolean): Promise<ParquetRow[]> {
    let rows = this.groups.get(g);
    if (rows) {
      this.groups.delete(g);
      this.groups.set(g, rows);
      const read = this.inFlight.get(g);
      if (read && pinned) read.pinned = true;
      return rows;
    }
    const start = this.groupStarts[g] as number;
    this.groupReads++;
    const read: GroupRead = {
      controller: new AbortController(),
      waiters: 0,
      pinned,
      settled: false,
    };
    const signal = AbortSignal.any([this.closer.signal, read.controller.signal]);
    rows = this.decode(g, start, signal);
    const entry = rows;
    const settle = () => {
      read.settled = true;
      if (this.inFlight.get(g) === read) this.inFlight.delete(g);
    };
    entry.then(settle, () => {
      settle();
      if (this.groups.get(g) === entry) this.groups.delete(g);
    });
    this.groups.set(g, entry);
    this.inFlight.set(g, read);
    while (this.groups.size > this.cacheSize) {
      const oldest = this.groups.keys().next().value as number;
      this.groups.delete(oldest);
    }
    return entry;
  }

  /**
   * Read row group `g`'s column bytes on `signal` (or take the read-ahead span holding them),
   * check its page headers against the limits, then let hyparquet decode it from those bytes.
   */
  private async decode(g: number, first: number, signal: AbortSignal): Promise<ParquetRow[]> {
    const { start, end } = this.groupSpan(g);
    let span = this.spans.find((x) => x.start <= start && end <= x.end);
    const own = !span && end > start;
    if (own) {
      span = { start, end, bytes: this.reader.read(start, end, { signal }) };
      this.spans.push(span);
    }
    try {
      if (span) {
        const bytes = await span.bytes;
        const read = new Set(this.readColumns);
        checkRowGroupPages(this.metadata, g, this.url, bytes, span.start, read, this.limits);
      }
      return await parquetReadObjects({
        file: rangeFile(this.reader, this.file.byteLength, this.spans, signal),
        metadata: this.metadata,
        columns: this.readColumns,
        rowStart: first,
        rowEnd: first + (this.rowGroupSizes[g] as number),
        utf8: false,
        compressors: this.compressors,
      });
    } catch (error) {
      throw formatError(error, `row group ${g} of ${this.url} could not be decoded`);
    } finally {
      if (own && span) {
        const i = this.spans.indexOf(span);
        if (i >= 0) this.spans.splice(i, 1);
      }
    }
  }
}
