import {
  ClosedError,
  checkPlan,
  type Dataset,
  type GetOptions,
  isRetryable,
  mergeRanges,
  type PersistentStore,
  type PlanAware,
  raceAbort,
  retry,
  ShardLayout,
} from '@medfusion/core';
import { defaultOriginLimiter } from '../remote/OriginLimiter.js';
import { type HttpOptions, RangeReader } from '../remote/RangeReader.js';
import {
  ChecksumMismatchError,
  ObjectChangedError,
  SourceFormatError,
} from '../remote/RemoteError.js';
import { sha256Hex } from '../remote/sha256.js';
import { type UrlPolicy, UrlScope } from '../remote/urlPolicy.js';
import {
  decodeTarIndex,
  encodeTarIndex,
  groupSamples,
  indexTarStream,
  type TarMember,
  type TarSampleEntry,
} from './tarIndex.js';

/** One WebDataset sample: the member files sharing a key, by extension. */
export interface WebDatasetSample {
  /** The sample key (member path up to the first dot of its basename). */
  key: string;
  /** Which shard it came from (position in `urls` / the manifest). */
  shard: number;
  /** Member bytes by extension, e.g. `{ png, cls, json }`. */
  files: Record<string, Uint8Array>;
}

/** One shard in a manifest. */
export interface ShardManifestEntry {
  /** Shard URL, absolute or relative to the manifest. */
  url: string;
  /** Number of samples in the shard; when every shard has it, indices load lazily per shard. */
  samples?: number;
  /** Hex sha256 of the whole shard, verified (WebCrypto) the first time the shard is streamed. */
  sha256?: string;
  /** URL of a sidecar index for this shard (relative to the manifest), overriding `sidecar`. */
  index?: string;
}

/** A JSON manifest: `{ "shards": [{ "url": "train-000000.tar", "samples": 1000, "sha256": "…" }, …] }`. */
export interface ShardManifest {
  /** The shards, in order; sample indices are numbered shard by shard. */
  shards: ShardManifestEntry[];
}

/** Options of {@link WebDatasetSource.open}. */
export interface WebDatasetSourceOptions<T = WebDatasetSample> extends HttpOptions {
  /** Shard URLs (`.tar`), in order. Give this or `manifestUrl`. */
  urls?: readonly (string | URL)[];
  /** URL of a {@link ShardManifest} JSON. Give this or `urls`. */
  manifestUrl?: string | URL;
  /** Maps a raw sample to what `get` returns (decode images, parse labels). */
  transform?: (sample: WebDatasetSample, index: number) => T | Promise<T>;
  /** Disk tier that keeps built shard indices (keyed by URL, checked by ETag) across visits. */
  store?: PersistentStore;
  /**
   * Where a shard's sidecar index lives (`false`: never look). A missing
   * sidecar (404) falls back to streaming the shard once.
   * @default (url) => `${url}.idx.json`
   */
  sidecar?: false | ((shardUrl: string) => string);
  /**
   * Samples of the plan fetched ahead (in merged range requests) once a plan is set.
   * @default 256
   */
  lookahead?: number;
  /**
   * Largest gap of unwanted bytes read through to merge two samples into one request.
   * @default 65536
   */
  maxGap?: number;
  /**
   * Largest single merged request, in bytes.
   * @default 8388608 (8 MiB)
   */
  maxRequestBytes?: number;
  /** Aborts opening (manifest and index loads). */
  signal?: AbortSignal;
  /**
   * Which shard and index URLs a manifest may name. By default they must resolve under the
   * manifest's folder, and `headers` only go to the manifest's origin; anything else fails
   * `open()` with `URL_NOT_ALLOWED` unless allowed here. URLs given in `urls` are yours and
   * are not checked.
   * @default {} (only under the manifest's folder)
   */
  urlPolicy?: UrlPolicy;
}

/** A wanted sample byte range (one request may cover many). */
export interface SampleRange {
  /** Global sample index. */
  index: number;
  /** Shard URL. */
  url: string;
  /** First byte. */
  start: number;
  /** One past the last byte. */
  end: number;
}

/** Counters of a {@link WebDatasetSource}. */
export interface WebDatasetStats {
  /** HTTP requests sent to the shard files: range reads, index streams and ETag probes, retries included. */
  rangeRequests: number;
  /** Bytes received for sample data. */
  bytesRead: number;
  /** Shard indices built by streaming a shard. */
  indexBuilds: number;
  /** Shard indices read from a sidecar file. */
  sidecarHits: number;
  /** Shard indices read from the store. */
  storeHits: number;
}

interface Shard {
  url: string;
  /** The user's headers when the shard's origin may receive them, else none. */
  headers: Record<string, string> | undefined;
  sha256?: string;
  sidecarUrl?: string;
  declared?: number;
  reader: RangeReader;
  loading?: Promise<TarSampleEntry[]>;
  samples?: TarSampleEntry[];
}

interface Pending {
  promise: Promise<Uint8Array>;
  pos: number;
}

function deferred<T>(): {
  promise: Promise<T>;
  resolve: (v: T) => void;
  reject: (e: unknown) => void;
} {
  let resolve!: (v: T) => void;
  let reject!: (e: unknown) => void;
  const promise = new Promise<T>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  promise.catch(() => {}); // an unconsumed prefetch failing is not an unhandled rejection
  return { promise, resolve, reject };
}

function positiveIntOption(name: string, value: number | undefined, fallback: number): number {
  const v = value ?? fallback;
  if (typeof v !== 'number' || !Number.isInteger(v) || v < 1) {
    throw new RangeError(`${name} must be a positive integer, got ${String(v)}`);
  }
  return v;
}

function absolute(url: string | URL, base?: string): string {
  const b = base ?? (globalThis as { location?: { href: string } }).location?.href;
  try {
    return new URL(String(url), b).href;
  } catch {
    throw new TypeError(`not a valid URL: ${JSON.stringify(String(url))}`);
  }
}

/**
 * WebDataset tar shards over HTTP range requests, as a random-access
 * {@link Dataset}: members sharing a basename form one sample; each shard's
 * index comes from a sidecar file, the store, or one streaming pass; samples
 * are read with `Range` requests pinned to the shard's ETag. Given the plan
 * (`setPlan`, called by `PrefetchDataset` / `DataLoader`), it reads the next
 * `lookahead` samples in as few merged range requests as the gap limit allows.
 *
 * @example
 * const source = await WebDatasetSource.open({
 *   manifestUrl: 'https://huggingface.co/datasets/org/set/resolve/main/manifest.json',
 *   transform: (s) => ({ image: s.files.png, label: Number(new TextDecoder().decode(s.files.cls)) }),
 * });
 * const order = shardPlan({ shardSizes: source.shardSizes, seed: 1, windowShards: 4 });
 * source.setPlan(order);
 */
export class WebDatasetSource<T = WebDatasetSample> implements Dataset<T>, PlanAware {
  /** Number of samples over all shards. */
  readonly length: number;
  /** Samples per shard, in shard order (feed to `shardPlan`). */
  readonly shardSizes: readonly number[];
  private readonly shards: Shard[];
  private readonly layout: ShardLayout;
  private readonly options: WebDatasetSourceOptions<T>;
  private readonly lookahead: number;
  private readonly maxGap: number;
  private readonly maxRequestBytes: number;
  private readonly closer = new AbortController();
  private readonly pending = new Map<number, Pending>();
  private readonly pendingOrder: { index: number; pos: number }[] = [];
  private plan: Uint32Array | undefined;
  private cursor = 0;
  private scheduledUntil = 0;
  private closed = false;
  private readonly counters: WebDatasetStats = {
    rangeRequests: 0,
    bytesRead: 0,
    indexBuilds: 0,
    sidecarHits: 0,
    storeHits: 0,
  };

  private constructor(shards: Shard[], sizes: number[], options: WebDatasetSourceOptions<T>) {
    this.shards = shards;
    this.shardSizes = sizes;
    this.layout = new ShardLayout(sizes);
    this.length = this.layout.length;
    this.options = options;
    this.lookahead = positiveIntOption('lookahead', options.lookahead, 256);
    this.maxGap = options.maxGap ?? 65536;
    this.maxRequestBytes = positiveIntOption('maxRequestBytes', options.maxRequestBytes, 8 << 20);
  }

  /** Resolve the shard list and (unless the manifest gives every shard's sample count) index every shard. */
  static async open<T = WebDatasetSample>(
    options: WebDatasetSourceOptions<T>,
  ): Promise<WebDatasetSource<T>> {
    if (options === null || typeof options !== 'object') {
      throw new TypeError(`options must be an object, got ${String(options)}`);
    }
    const hasUrls = options.urls !== undefined;
    if (hasUrls === (options.manifestUrl !== undefined)) {
      throw new TypeError('give exactly one of urls or manifestUrl');
    }
    positiveIntOption('lookahead', options.lookahead, 256);
    positiveIntOption('maxRequestBytes', options.maxRequestBytes, 8 << 20);
    if (options.maxGap !== undefined && (!Number.isInteger(options.maxGap) || options.maxGap < 0)) {
      throw new RangeError(`maxGap must be a non-negative integer, got ${String(options.maxGap)}`);
    }
    let entries: ShardManifestEntry[];
    let scope: UrlScope | undefined;
    if (hasUrls) {
      if (!Array.isArray(options.urls) || options.urls.length === 0) {
        throw new TypeError(
          `urls must be a non-empty array of shard URLs, got ${String(options.urls)}`,
        );
      }
      entries = options.urls.map((u) => ({ url: String(u) }));
    } else {
      const base = absolute(options.manifestUrl as string | URL);
      scope = new UrlScope(base, options.urlPolicy);
      entries = await loadManifest(base, options);
    }
    const where = (i: number, field: string) =>
      `manifest ${options.manifestUrl}: shards[${i}].${field}`;
    const sidecar = options.sidecar ?? ((u: string) => `${u}.idx.json`);
    const shards: Shard[] = entries.map((e, i) => {
      const url = scope ? scope.resolve(e.url, where(i, 'url')) : absolute(e.url);
      const headers = !scope || scope.mayCarryCredentials(url) ? options.headers : undefined;
      const shard: Shard = {
        url,
        headers,
        reader: new RangeReader({
          url,
          fetch: options.fetch,
          limiter: options.limiter ?? defaultOriginLimiter,
          retry: options.retry,
          headers,
        }),
      };
      if (e.sha256 !== undefined) shard.sha256 = e.sha256.toLowerCase();
      if (e.samples !== undefined) shard.declared = e.samples;
      if (e.index !== undefined) {
        shard.sidecarUrl = scope ? scope.resolve(e.index, where(i, 'index')) : absolute(e.index);
      } else if (sidecar) shard.sidecarUrl = sidecar(url);
      return shard;
    });
    const lazy = shards.every((s) => s.declared !== undefined);
    // A throwaway instance loads indices with the same code path as later.
    const probe = new WebDatasetSource<T>(shards, [], options);
    let sizes: number[];
    if (lazy) sizes = shards.map((s) => s.declared as number);
    else {
      sizes = await Promise.all(
        shards.map(async (_, i) => (await probe.shardIndex(i, options.signal)).length),
      );
    }
    const source = new WebDatasetSource<T>(shards, sizes, options);
    Object.assign(source.counters, probe.counters);
    return source;
  }

  /** Counters for monitoring and tests. */
  stats(): WebDatasetStats {
    let requests = 0;
    for (const shard of this.shards) requests += shard.reader.requests;
    return { ...this.counters, rangeRequests: requests };
  }

  /** Load sample `index` (from the plan window's merged reads when it was prefetched). */
  async get(index: number, opts?: GetOptions): Promise<T> {
    if (!Number.isInteger(index) || index < 0 || index >= this.length) {
      throw new RangeError(`index ${String(index)} is out of range [0, ${this.length})`);
    }
    if (this.closed) throw new ClosedError('WebDatasetSource');
    this.advance(index);
    const hit = this.pending.get(index);
    let bytesPromise: Promise<Uint8Array>;
    if (hit) {
      this.pending.delete(index);
      bytesPromise = hit.promise;
    } else {
      bytesPromise = this.fetchOne(index);
    }
    const bytes = await raceAbort(bytesPromise, opts?.signal);
    const sample = this.toSample(index, bytes);
    const transform = this.options.transform;
    return transform ? transform(sample, index) : (sample as unknown as T);
  }

  /** Hand over the coming access order; reads then run `lookahead` samples ahead in merged requests. */
  setPlan(order: ArrayLike<number>): void {
    this.plan = checkPlan(order, this.length);
    this.cursor = 0;
    this.scheduledUntil = 0;
  }

  /** The merged byte ranges (one per request) that reading `indices` takes. */
  async rangesFor(
    indices: ArrayLike<number>,
    opts?: GetOptions,
  ): Promise<{ url: string; start: number; end: number; parts: SampleRange[] }[]> {
    const wanted = await this.sampleRanges(Array.from(indices), opts?.signal);
    const out: { url: string; start: number; end: number; parts: SampleRange[] }[] = [];
    for (const [url, ranges] of wanted) {
      for (const m of mergeRanges(ranges, {
        maxGap: this.maxGap,
        maxRequestBytes: this.maxRequestBytes,
      })) {
        out.push({ url, start: m.start, end: m.end, parts: m.parts });
      }
    }
    return out;
  }

  /** Start reading `indices` now in merged requests; a later `get` of each takes its bytes. */
  prefetch(indices: ArrayLike<number>): void {
    if (this.closed) throw new ClosedError('WebDatasetSource');
    const list: number[] = [];
    for (let i = 0; i < indices.length; i++) {
      const idx = indices[i] as number;
      if (!Number.isInteger(idx) || idx < 0 || idx >= this.length) {
        throw new RangeError(`indices[${i}] ${String(idx)} is out of range [0, ${this.length})`);
      }
      if (!this.pending.has(idx)) list.push(idx);
    }
    this.schedule(list, this.cursor + this.lookahead);
  }

  /** Abort reads in flight, drop prefetched bytes; later `get`s throw `CLOSED`. */
  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.closer.abort(new ClosedError('WebDatasetSource'));
    this.pending.clear();
    this.pendingOrder.length = 0;
  }

  /** Move the plan cursor to `index` and keep the window `lookahead` samples ahead. */
  private advance(index: number): void {
    const plan = this.plan;
    if (!plan) return;
    const limit = Math.min(plan.length, this.cursor + this.lookahead * 4);
    let pos = -1;
    for (let p = this.cursor; p < limit; p++) {
      if (plan[p] === index) {
        pos = p;
        break;
      }
    }
    if (pos < 0) return;
    this.cursor = pos + 1;
    if (pos >= this.scheduledUntil - this.lookahead / 2) {
      // Whole chunks of `lookahead` plan positions, so a chunk that matches a
      // shuffle window reads each of its shards' ranges once.
      const from = Math.max(this.scheduledUntil, pos);
      const to = Math.min(plan.length, from + this.lookahead);
      const list: number[] = [];
      const positions: number[] = [];
      const seen = new Set<number>();
      for (let p = from; p < to; p++) {
        const idx = plan[p] as number;
        if (this.pending.has(idx) || seen.has(idx)) continue;
        seen.add(idx);
        list.push(idx);
        positions.push(p);
      }
      // Samples a little further in the plan: kept when a merged read covers them anyway.
      const upcoming = new Map<number, number>();
      const horizonEnd = Math.min(plan.length, to + 3 * this.lookahead);
      for (let p = to; p < horizonEnd; p++) {
        const idx = plan[p] as number;
        if (!seen.has(idx) && !upcoming.has(idx)) upcoming.set(idx, p);
      }
      this.scheduledUntil = Math.max(this.scheduledUntil, to);
      this.schedule(list, positions, upcoming);
    }
    this.evict();
  }

  private evict(): void {
    const horizon = this.cursor - this.lookahead;
    while (
      this.pendingOrder.length > 0 &&
      (this.pendingOrder[0] as { pos: number }).pos < horizon
    ) {
      const { index, pos } = this.pendingOrder.shift() as { index: number; pos: number };
      if (this.pending.get(index)?.pos === pos) this.pending.delete(index);
    }
  }

  /** Register deferred bytes for `list` now, then read them in merged requests. */
  private schedule(
    list: number[],
    positions: number[] | number,
    upcoming?: Map<number, number>,
  ): void {
    if (list.length === 0) return;
    const slots = new Map<number, ReturnType<typeof deferred<Uint8Array>>>();
    for (const [k, idx] of list.entries()) {
      // Each entry is dropped once the cursor is `lookahead` past its plan position.
      const pos = typeof positions === 'number' ? positions : (positions[k] as number);
      const d = deferred<Uint8Array>();
      slots.set(idx, d);
      this.pending.set(idx, { promise: d.promise, pos });
      this.pendingOrder.push({ index: idx, pos });
    }
    const signal = this.closer.signal;
    void (async () => {
      let wanted: Map<string, SampleRange[]>;
      try {
        wanted = await this.sampleRanges(list, signal);
      } catch (error) {
        for (const d of slots.values()) d.reject(error);
        return;
      }
      const jobs: Promise<void>[] = [];
      for (const ranges of wanted.values()) {
        const reader = this.shards[this.layout.shardOf((ranges[0] as SampleRange).index)]?.reader;
        for (const m of mergeRanges(ranges, {
          maxGap: this.maxGap,
          maxRequestBytes: this.maxRequestBytes,
        })) {
          jobs.push(
            this.readRange(reader as RangeReader, m.start, m.end, signal).then(
              (bytes) => {
                for (const part of m.parts) {
                  slots
                    .get(part.index)
                    ?.resolve(bytes.subarray(part.start - m.start, part.end - m.start));
                }
                if (upcoming && upcoming.size > 0) this.keepCovered(ranges, m, bytes, upcoming);
              },
              (error: unknown) => {
                for (const part of m.parts) slots.get(part.index)?.reject(error);
              },
            ),
          );
        }
      }
      // Samples with nothing to read (only empty members).
      for (const [idx, d] of slots) {
        if (!this.rangeKnown(idx)) d.resolve(new Uint8Array(0));
      }
      await Promise.all(jobs);
    })();
  }

  /**
   * A merged read also returned the bytes of samples between the wanted ones;
   * keep those the plan needs soon (`upcoming`: index → plan position) instead
   * of reading them again later.
   */
  private keepCovered(
    ranges: SampleRange[],
    m: { start: number; end: number },
    bytes: Uint8Array,
    upcoming: Map<number, number>,
  ): void {
    if (this.closed) return;
    const s = this.layout.shardOf((ranges[0] as SampleRange).index);
    const samples = (this.shards[s] as Shard).samples;
    if (!samples) return;
    const first = this.layout.start(s);
    // Samples are in archive order: binary search the first starting at or after m.start.
    let lo = 0;
    let hi = samples.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if ((samples[mid] as TarSampleEntry).start < m.start) lo = mid + 1;
      else hi = mid;
    }
    for (let k = lo; k < samples.length; k++) {
      const e = samples[k] as TarSampleEntry;
      if (e.start >= m.end) break;
      if (e.end > m.end || e.end <= e.start) continue;
      const idx = first + k;
      const pos = upcoming.get(idx);
      if (pos === undefined || this.pending.has(idx)) continue;
      this.pending.set(idx, {
        promise: Promise.resolve(bytes.subarray(e.start - m.start, e.end - m.start)),
        pos,
      });
      this.pendingOrder.push({ index: idx, pos });
    }
  }

  private rangeKnown(index: number): boolean {
    const shard = this.shards[this.layout.shardOf(index)] as Shard;
    const s = shard.samples?.[this.layout.localIndex(index)];
    return s !== undefined && s.end > s.start;
  }

  private async readRange(
    reader: RangeReader,
    start: number,
    end: number,
    signal: AbortSignal,
  ): Promise<Uint8Array> {
    const bytes = await reader.read(start, end, { signal });
    this.counters.bytesRead += bytes.length;
    return bytes;
  }

  private async fetchOne(index: number): Promise<Uint8Array> {
    const signal = this.closer.signal;
    const wanted = await this.sampleRanges([index], signal);
    for (const ranges of wanted.values()) {
      const r = ranges[0] as SampleRange;
      const reader = (this.shards[this.layout.shardOf(index)] as Shard).reader;
      return this.readRange(reader, r.start, r.end, signal);
    }
    return new Uint8Array(0);
  }

  /** Byte ranges of `indices`, grouped by shard URL (samples with no bytes left out). */
  private async sampleRanges(
    indices: number[],
    signal: AbortSignal | undefined,
  ): Promise<Map<string, SampleRange[]>> {
    const byShard = new Map<number, number[]>();
    for (const idx of indices) {
      const s = this.layout.shardOf(idx);
      let l = byShard.get(s);
      if (!l) {
        l = [];
        byShard.set(s, l);
      }
      l.push(idx);
    }
    const out = new Map<string, SampleRange[]>();
    for (const [s, idxs] of byShard) {
      const samples = await this.shardIndex(s, signal);
      const shard = this.shards[s] as Shard;
      const start = this.layout.start(s);
      const ranges: SampleRange[] = [];
      for (const idx of idxs) {
        const e = samples[idx - start] as TarSampleEntry;
        if (e.end > e.start)
          ranges.push({ index: idx, url: shard.url, start: e.start, end: e.end });
      }
      if (ranges.length > 0) out.set(shard.url, ranges);
    }
    return out;
  }

  private toSample(index: number, bytes: Uint8Array): WebDatasetSample {
    const s = this.layout.shardOf(index);
    const entry = (this.shards[s] as Shard).samples?.[
      index - this.layout.start(s)
    ] as TarSampleEntry;
    const files: Record<string, Uint8Array> = {};
    for (const m of entry.members) {
      files[m.ext] =
        m.size === 0
          ? new Uint8Array(0)
          : bytes.slice(m.offset - entry.start, m.offset - entry.start + m.size);
    }
    return { key: entry.key, shard: s, files };
  }

  /** The samples of shard `s`: from the store, a sidecar, or one streaming pass (memoized). */
  private shardIndex(s: number, signal: AbortSignal | undefined): Promise<TarSampleEntry[]> {
    const shard = this.shards[s] as Shard;
    if (shard.samples) return Promise.resolve(shard.samples);
    if (!shard.loading) {
      shard.loading = this.loadIndex(shard).then(
        (samples) => {
          if (shard.declared !== undefined && samples.length !== shard.declared) {
            throw new SourceFormatError(
              `${shard.url} holds ${samples.length} samples, the manifest says ${shard.declared}`,
            );
          }
          shard.samples = samples;
          return samples;
        },
        (error: unknown) => {
          shard.loading = undefined;
          throw error;
        },
      );
    }
    return raceAbort(shard.loading, signal);
  }

  private async loadIndex(shard: Shard): Promise<TarSampleEntry[]> {
    const signal = this.closer.signal;
    const store = this.options.store;
    const key = `medfusion:wds-index:v1:${shard.url}`;
    if (store) {
      const stored = await store.get(key);
      if (stored) {
        const members = await this.validateStored(shard, stored, signal);
        if (members) {
          this.counters.storeHits++;
          return groupSamples(members);
        }
      }
    }
    let members: TarMember[] | undefined;
    let sha256: string | undefined;
    if (shard.sidecarUrl && !shard.sha256) {
      members = await this.readSidecar(shard.sidecarUrl, shard.headers, signal);
      if (members) this.counters.sidecarHits++;
    }
    if (!members) {
      const built = await retry(() => this.buildIndex(shard, signal), {
        ...this.options.retry,
        signal,
        shouldRetry: isRetryable,
      });
      members = built;
      sha256 = shard.sha256;
      this.counters.indexBuilds++;
    }
    if (store) {
      const extra: { etag?: string; size?: number; sha256?: string } = {};
      if (shard.reader.etag !== undefined) extra.etag = shard.reader.etag;
      if (shard.reader.size !== undefined) extra.size = shard.reader.size;
      if (sha256 !== undefined) extra.sha256 = sha256;
      await store.put(key, encodeTarIndex(members, extra));
    }
    return groupSamples(members);
  }

  /** A stored index still valid for the object as it is now (same ETag), or undefined. */
  private async validateStored(
    shard: Shard,
    stored: Uint8Array,
    signal: AbortSignal,
  ): Promise<TarMember[] | undefined> {
    let decoded: ReturnType<typeof decodeTarIndex>;
    try {
      decoded = decodeTarIndex(stored);
    } catch {
      return undefined;
    }
    const { file, members } = decoded;
    if (shard.sha256 && file.sha256 !== shard.sha256) return undefined;
    if (file.etag === undefined) return members;
    const reader = new RangeReader({
      url: shard.url,
      fetch: this.options.fetch,
      limiter: this.options.limiter,
      retry: this.options.retry,
      headers: shard.headers,
      etag: file.etag,
      ...(file.size === undefined ? {} : { size: file.size }),
    });
    try {
      await reader.probe({ signal });
    } catch (error) {
      if (error instanceof ObjectChangedError) return undefined;
      throw error;
    }
    shard.reader = reader;
    return members;
  }

  private async readSidecar(
    url: string,
    headers: Record<string, string> | undefined,
    signal: AbortSignal,
  ): Promise<TarMember[] | undefined> {
    const reader = new RangeReader({
      url,
      fetch: this.options.fetch,
      limiter: this.options.limiter,
      retry: this.options.retry,
      headers,
    });
    let text: string;
    try {
      text = await new Response(await reader.stream({ signal })).text();
    } catch (error) {
      if (
        (error as { status?: number }).status === 404 ||
        (error as { status?: number }).status === 403
      ) {
        return undefined;
      }
      throw error;
    }
    return decodeTarIndex(text).members;
  }

  private async buildIndex(shard: Shard, signal: AbortSignal): Promise<TarMember[]> {
    const stream = await shard.reader.stream({ signal });
    const chunks: Uint8Array[] | undefined = shard.sha256 ? [] : undefined;
    const members = await indexTarStream(stream, chunks ? (c) => chunks.push(c) : undefined);
    if (shard.sha256 && chunks) {
      const actual = await sha256Hex(chunks);
      if (actual !== shard.sha256) throw new ChecksumMismatchError(shard.url, shard.sha256, actual);
    }
    return members;
  }
}

async function loadManifest(
  url: string,
  options: WebDatasetSourceOptions<unknown>,
): Promise<ShardManifestEntry[]> {
  const reader = new RangeReader({
    url,
    fetch: options.fetch,
    limiter: options.limiter,
    retry: options.retry,
    headers: options.headers,
  });
  const text = await new Response(await reader.stream({ signal: options.signal })).text();
  let manifest: ShardManifest;
  try {
    manifest = JSON.parse(text);
  } catch (error) {
    throw new SourceFormatError(`manifest ${url} is not JSON`, { cause: error });
  }
  if (!manifest || !Array.isArray(manifest.shards) || manifest.shards.length === 0) {
    throw new SourceFormatError(
      `manifest ${url} must be { "shards": [{ "url": ... }, ...] } with at least one shard`,
    );
  }
  manifest.shards.forEach((e, i) => {
    if (!e || typeof e.url !== 'string') {
      throw new SourceFormatError(`manifest ${url}: shards[${i}].url must be a string`);
    }
    if (e.samples !== undefined && (!Number.isInteger(e.samples) || e.samples < 0)) {
      throw new SourceFormatError(
        `manifest ${url}: shards[${i}].samples must be a non-negative integer, got ${e.samples}`,
      );
    }
    if (e.sha256 !== undefined && !/^[0-9a-fA-F]{64}$/.test(e.sha256)) {
      throw new SourceFormatError(
        `manifest ${url}: shards[${i}].sha256 must be 64 hex digits, got ${JSON.stringify(e.sha256)}`,
      );
    }
  });
  return manifest.shards;
}
