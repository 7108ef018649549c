import type { TarSampleEntry } from '@medfusion/core';
import {
  ClosedError,
  type Dataset,
  type GetOptions,
  LoadPhaseCounter,
  type LoadPhaseStats,
  type PlanAware,
  type PlanInput,
  type ReportsLoadPhases,
  ShardLayout,
} from '@medfusion/core';
import {
  abortReason,
  index as checkIndex,
  raceAbort,
  TAR_BLOCK,
  throwIfAborted,
  toEpochPlan,
} from '@medfusion/core/internal';
import * as Comlink from 'comlink';
import type { WorkerExecutor } from '../../workers/createWorkerExecutor.js';
import { WorkerCrashedError } from '../../workers/workerErrors.js';
import { assembleSample } from './assembleSample.js';
import { ReadAhead } from './ReadAhead.js';
import { ShardIndexLoader } from './ShardIndexLoader.js';
import { openShards, type ShardTable } from './shardManifest.js';
import { checkWebDatasetOptions, readAheadSettings } from './webDatasetChecks.js';
import type {
  SampleRange,
  WebDatasetSample,
  WebDatasetSourceOptions,
  WebDatasetStats,
} from './webDatasetOptions.js';

/**
 * Sample counts of every shard: declared ones as declared, the others from their
 * index, loaded `concurrency` at a time in shard order (so the first shards'
 * failures show first). The first failure aborts `closer`, and with it every
 * load started here; no new load starts after that.
 */
async function countSamples(
  shards: ShardTable,
  indices: ShardIndexLoader,
  concurrency: number,
  closer: AbortController,
): Promise<number[]> {
  const sizes: number[] = [];
  for (let s = 0; s < shards.count; s++) sizes.push(shards.declared(s) ?? -1);
  let next = 0;
  const worker = async () => {
    while (next < shards.count) {
      throwIfAborted(closer.signal);
      const s = next++;
      if ((sizes[s] as number) >= 0) continue;
      try {
        sizes[s] = (await indices.shardIndex(s, closer.signal)).length;
      } catch (error) {
        if (!closer.signal.aborted) closer.abort(error);
        throw error;
      }
    }
  };
  const workers: Promise<void>[] = [];
  for (let w = 0; w < Math.min(concurrency, shards.count); w++) workers.push(worker());
  await Promise.all(workers);
  return sizes;
}

/**
 * The payload of a sample's call to the transform pool: its bytes (their own
 * buffer, or cut in one copy from a whole shard's read), the members views into
 * it, that one buffer moved to the worker. A function, as the pool calls it per attempt: the retry after a
 * crash finds the buffer gone with the dead worker and fails the call instead.
 */
function movePayload(
  index: number,
  entry: TarSampleEntry,
  shard: number,
  bytes: Uint8Array,
): () => unknown {
  let sent = false;
  return () => {
    if (sent) {
      throw new WorkerCrashedError(
        index,
        "the worker that held the sample's bytes died; they were moved to it, so read the sample again",
      );
    }
    sent = true;
    const own = ownsBuffer(bytes) ? bytes : bytes.slice();
    return Comlink.transfer(assembleSample(entry, shard, own, true), [own.buffer]);
  };
}

/**
 * Whether `bytes`, a sample's bytes from the read-ahead (which hands each out once),
 * are all their buffer holds but at most one tar header (the first member's, read to
 * check it): then the sample may keep views of it, or move it to a worker, without
 * holding anyone else's bytes. Any view of a shared read holds at least the next
 * sample's header besides.
 */
function ownsBuffer(bytes: Uint8Array): boolean {
  return bytes.buffer.byteLength - bytes.byteLength <= TAR_BLOCK;
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
export class WebDatasetSource<T = WebDatasetSample>
  implements Dataset<T>, PlanAware, ReportsLoadPhases
{
  /** Number of samples over all shards. */
  readonly length: number;
  /** Samples per shard, in shard order (feed to `shardPlan`). */
  readonly shardSizes: readonly number[];
  private readonly shards: ShardTable;
  private readonly layout: ShardLayout;
  private readonly transform: WebDatasetSourceOptions<T>['transform'];
  private readonly transformExecutor: WorkerExecutor<T> | undefined;
  private readonly indices: ShardIndexLoader;
  private readonly readAhead: ReadAhead;
  private readonly phases = new LoadPhaseCounter();
  private readonly closer: AbortController;
  private closed = false;

  private constructor(
    shards: ShardTable,
    sizes: readonly number[],
    options: WebDatasetSourceOptions<T>,
    indices: ShardIndexLoader,
    closer: AbortController,
  ) {
    this.shards = shards;
    this.shardSizes = sizes;
    this.layout = new ShardLayout(sizes);
    this.length = this.layout.length;
    this.transform = options.transform;
    this.transformExecutor = options.transformExecutor;
    this.indices = indices;
    this.closer = closer;
    this.readAhead = new ReadAhead(
      shards,
      this.layout,
      indices,
      readAheadSettings(options as WebDatasetSourceOptions<unknown>),
      closer.signal,
    );
  }

  /**
   * Read the shard list (one pass over the manifest, URLs checked against the
   * `urlPolicy`), then index the shards whose sample count the manifest does not
   * declare, `indexConcurrency` at a time in shard order. When every shard declares
   * `samples`, nothing but the manifest is requested; shards are resolved, given a
   * reader and indexed when first touched. If one index load fails (or `signal`
   * aborts), every load this call started is aborted and it rejects with that error.
   */
  static async open<T = WebDatasetSample>(
    options: WebDatasetSourceOptions<T>,
  ): Promise<WebDatasetSource<T>> {
    const concurrency = checkWebDatasetOptions(options as WebDatasetSourceOptions<unknown>);
    const shards = await openShards(options as WebDatasetSourceOptions<unknown>);
    const closer = new AbortController();
    const settings = readAheadSettings(options as WebDatasetSourceOptions<unknown>);
    const indices = new ShardIndexLoader(
      shards,
      options as WebDatasetSourceOptions<unknown>,
      closer.signal,
      settings.maxIndexSamples,
      settings.maxRequestBytes,
    );
    const signal = options.signal;
    const onAbort = () => closer.abort(abortReason(signal as AbortSignal));
    signal?.addEventListener('abort', onAbort, { once: true });
    let sizes: readonly number[];
    try {
      throwIfAborted(signal);
      sizes = shards.declaredSizes() ?? (await countSamples(shards, indices, concurrency, closer));
    } catch (error) {
      if (!closer.signal.aborted) closer.abort(error);
      throw error;
    } finally {
      signal?.removeEventListener('abort', onAbort);
    }
    return new WebDatasetSource<T>(shards, sizes, options, indices, closer);
  }

  /** Counters for monitoring and tests. */
  stats(): WebDatasetStats {
    let requests = 0;
    for (const shard of this.shards.touchedShards()) requests += shard.reader.requests;
    return {
      rangeRequests: requests,
      bytesRead: this.readAhead.bytesRead,
      indexBuilds: this.indices.indexBuilds,
      sidecarHits: this.indices.sidecarHits,
      storeHits: this.indices.storeHits,
      indexSamplesHeld: this.indices.samplesHeld,
    };
  }

  /** Load sample `index` (from the plan window's merged reads when it was prefetched). */
  async get(index: number, opts?: GetOptions): Promise<T> {
    checkIndex(index, this.length);
    if (this.closed) throw new ClosedError('WebDatasetSource');
    const startAt = performance.now();
    const bytes = await raceAbort(this.readAhead.take(index, opts?.signal), opts?.signal);
    const decodeAt = performance.now();
    const s = this.layout.shardOf(index);
    const samples =
      this.shards.shard(s).samples ?? (await this.indices.shardIndex(s, opts?.signal));
    const entry = samples[this.layout.localIndex(index)] as TarSampleEntry;
    const executor = this.transformExecutor;
    let out: T;
    if (executor) {
      out = await executor.run(index, opts?.signal, movePayload(index, entry, s, bytes), opts);
    } else {
      // Bytes in a buffer of their own (a read of this sample alone, or its piece of a
      // merged read): members are views of it, no copy. A view of a whole shard read to
      // check it gets copies, so the shard's buffer is not kept alive by the sample.
      const sample = assembleSample(entry, s, bytes, ownsBuffer(bytes));
      const transform = this.transform;
      out = transform ? await transform(sample, index) : (sample as unknown as T);
    }
    this.phases.record(decodeAt - startAt, performance.now() - decodeAt);
    return out;
  }

  /**
   * Where this source's loads spent their time so far: waiting for a sample's bytes
   * (its share of a merged range read, or a read of its own) and turning them into
   * the sample (`transform`, e.g. an image decode); undefined before the first load.
   * `diagnose` reads it (through `getCacheStats().loadPhases`).
   */
  loadPhases(): LoadPhaseStats | undefined {
    return this.phases.snapshot();
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
