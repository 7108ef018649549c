import {
  ClosedError,
  type Dataset,
  type GetOptions,
  type PlanAware,
  type PlanInput,
  ShardLayout,
} from '@medfusion/core';
import { raceAbort, toEpochPlan } from '@medfusion/core/internal';
import { assembleSample } from './assembleSample.js';
import { ReadAhead } from './ReadAhead.js';
import { ShardIndexLoader } from './ShardIndexLoader.js';
import { openShards, type Shard } from './shardManifest.js';
import type { TarSampleEntry } from './tarIndex.js';
import type {
  SampleRange,
  WebDatasetSample,
  WebDatasetSourceOptions,
  WebDatasetStats,
} from './webDatasetOptions.js';

function positiveIntOption(name: string, value: number | undefined, fallback: number): number {
  const v = value ?? fallback;
  if (typeof v !== 'number' || !Number.isInteger(v) || v < 1) {
    throw new RangeError(`${name} must be a positive integer, got ${String(v)}`);
  }
  return v;
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
  private readonly shards: readonly Shard[];
  private readonly layout: ShardLayout;
  private readonly transform: WebDatasetSourceOptions<T>['transform'];
  private readonly indices: ShardIndexLoader;
  private readonly readAhead: ReadAhead;
  private readonly closer: AbortController;
  private closed = false;

  private constructor(
    shards: readonly Shard[],
    sizes: number[],
    options: WebDatasetSourceOptions<T>,
    indices: ShardIndexLoader,
    closer: AbortController,
  ) {
    this.shards = shards;
    this.shardSizes = sizes;
    this.layout = new ShardLayout(sizes);
    this.length = this.layout.length;
    this.transform = options.transform;
    this.indices = indices;
    this.closer = closer;
    this.readAhead = new ReadAhead(
      shards,
      this.layout,
      indices,
      {
        lookahead: positiveIntOption('lookahead', options.lookahead, 256),
        maxGap: options.maxGap ?? 65536,
        maxRequestBytes: positiveIntOption('maxRequestBytes', options.maxRequestBytes, 8 << 20),
      },
      closer.signal,
    );
  }

  /** Resolve the shard list and (unless the manifest gives every shard's sample count) index every shard. */
  static async open<T = WebDatasetSample>(
    options: WebDatasetSourceOptions<T>,
  ): Promise<WebDatasetSource<T>> {
    if (options === null || typeof options !== 'object') {
      throw new TypeError(`options must be an object, got ${String(options)}`);
    }
    if ((options.urls !== undefined) === (options.manifestUrl !== undefined)) {
      throw new TypeError('give exactly one of urls or manifestUrl');
    }
    positiveIntOption('lookahead', options.lookahead, 256);
    positiveIntOption('maxRequestBytes', options.maxRequestBytes, 8 << 20);
    if (options.maxGap !== undefined && (!Number.isInteger(options.maxGap) || options.maxGap < 0)) {
      throw new RangeError(`maxGap must be a non-negative integer, got ${String(options.maxGap)}`);
    }
    const shards = await openShards(options as WebDatasetSourceOptions<unknown>);
    const closer = new AbortController();
    const indices = new ShardIndexLoader(
      shards,
      options as WebDatasetSourceOptions<unknown>,
      closer.signal,
    );
    let sizes: number[];
    if (shards.every((s) => s.declared !== undefined)) {
      sizes = shards.map((s) => s.declared as number);
    } else {
      sizes = await Promise.all(
        shards.map(async (_, i) => (await indices.shardIndex(i, options.signal)).length),
      );
    }
    return new WebDatasetSource<T>(shards, sizes, options, indices, closer);
  }

  /** Counters for monitoring and tests. */
  stats(): WebDatasetStats {
    let requests = 0;
    for (const shard of this.shards) requests += shard.reader.requests;
    return {
      rangeRequests: requests,
      bytesRead: this.readAhead.bytesRead,
      indexBuilds: this.indices.indexBuilds,
      sidecarHits: this.indices.sidecarHits,
      storeHits: this.indices.storeHits,
    };
  }

  /** Load sample `index` (from the plan window's merged reads when it was prefetched). */
  async get(index: number, opts?: GetOptions): Promise<T> {
    if (!Number.isInteger(index) || index < 0 || index >= this.length) {
      throw new RangeError(`index ${String(index)} is out of range [0, ${this.length})`);
    }
    if (this.closed) throw new ClosedError('WebDatasetSource');
    const bytes = await raceAbort(this.readAhead.take(index), opts?.signal);
    const s = this.layout.shardOf(index);
    const entry = (this.shards[s] as Shard).samples?.[this.layout.localIndex(index)];
    const sample = assembleSample(entry as TarSampleEntry, s, bytes);
    const transform = this.transform;
    return transform ? transform(sample, index) : (sample as unknown as T);
  }

  /** Hand over the coming access order; reads then run `lookahead` samples ahead in merged requests. */
  setPlan(order: PlanInput): void {
    this.readAhead.setPlan(toEpochPlan(order, this.length));
  }

  /** The merged byte ranges (one per request) that reading `indices` takes. */
  async rangesFor(
    indices: ArrayLike<number>,
    opts?: GetOptions,
  ): Promise<{ url: string; start: number; end: number; parts: SampleRange[] }[]> {
    return this.readAhead.requestsFor(Array.from(indices), opts?.signal);
  }

  /** Start reading `indices` now in merged requests; a later `get` of each takes its bytes. */
  prefetch(indices: ArrayLike<number>): void {
    if (this.closed) throw new ClosedError('WebDatasetSource');
    this.readAhead.prefetch(indices);
  }

  /** Abort reads in flight, drop prefetched bytes; later `get`s throw `CLOSED`. */
  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.closer.abort(new ClosedError('WebDatasetSource'));
    this.readAhead.clear();
  }
}
