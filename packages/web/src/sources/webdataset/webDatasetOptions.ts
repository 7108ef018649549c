import type { PersistentStore } from '@medfusion/core';
import type { HttpOptions } from '../../remote/RangeReader.js';
import type { UrlPolicy } from '../../remote/urlPolicy.js';
import type { WorkerExecutor } from '../../workers/createWorkerExecutor.js';

/** One WebDataset sample: the member files sharing a key, by extension. */
export interface WebDatasetSample {
  /** The sample key (member path up to the first dot of its basename). */
  key: string;
  /** Which shard it came from (position in `urls` / the manifest). */
  shard: number;
  /** Member bytes by extension, e.g. `{ png, cls, json }`. */
  files: Record<string, Uint8Array>;
}

/** Options of {@link WebDatasetSource.open}. */
export interface WebDatasetSourceOptions<T = WebDatasetSample> extends HttpOptions {
  /** Shard URLs (`.tar`), in order. Give this or `manifestUrl`. */
  urls?: readonly (string | URL)[];
  /** URL of a {@link ShardManifest} JSON. Give this or `urls`. */
  manifestUrl?: string | URL;
  /**
   * Maps a raw sample to what `get` returns (decode images, parse labels), on the
   * thread that calls `get`. To run it in Web Workers instead, give `transformExecutor`.
   * A sample read by a request of its own gets members that are views of that one
   * buffer (no copy; transferring one member's buffer moves its siblings too); a sample
   * cut from a merged read gets copies.
   * @default undefined (`get` returns the raw {@link WebDatasetSample})
   */
  transform?: (sample: WebDatasetSample, index: number) => T | Promise<T>;
  /**
   * Runs the transform in Web Workers: a `createWorkerExecutor` pool whose workers call
   * `exposeTransform(fn)`. Reads stay here (merged range requests, read-ahead); each
   * sample's member bytes are cut from the read in one copy and moved (not copied) to a
   * worker with `get`'s signal and speculation, and what `fn` returns is moved back. Give
   * this or `transform`, not both. The pool stays yours: `close()` does not close it. A
   * worker that dies holding a sample fails that load with `WorkerCrashedError` (its bytes
   * were moved, so the pool cannot resend them); a `DataLoader`'s `onError: 'retry'` reads
   * the sample again.
   * @default undefined (the transform, if any, runs on the calling thread)
   */
  transformExecutor?: WorkerExecutor<T>;
  /** Disk tier that keeps built shard indices (keyed by URL, checked by ETag) across visits. */
  store?: PersistentStore;
  /**
   * Where a shard's sidecar index lives (`false`: never look). A missing
   * sidecar (404) falls back to streaming the shard once.
   * @default (url) => `${url}.idx.json`
   */
  sidecar?: false | ((shardUrl: string) => string);
  /**
   * Samples of the plan fetched ahead (in merged range requests) once a plan is set,
   * in chunks of this many positions; a chunk also reads the samples of the next
   * `3 × lookahead` positions that lie between its own in a shard, so up to
   * `4 × lookahead` samples' bytes may be held ahead.
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
  /**
   * Samples of shard index tables held in memory at once: beyond it the least
   * recently used tables are dropped and loaded again (store, sidecar or stream)
   * if asked for, so a reader's memory does not grow with the data set. A
   * shard-aware order touches each shard's table in one window; keep this above
   * the samples of a few windows, or tables are loaded more than once.
   * @default max(65536, 8 × lookahead)
   */
  maxIndexSamples?: number;
  /**
   * Shard indices `open()` loads at once when the manifest does not declare every
   * shard's `samples` (each a store or sidecar lookup, else one streaming pass over
   * the shard). They load in shard order; the first failure aborts the others.
   * @default 6
   */
  indexConcurrency?: number;
  /** Aborts opening (manifest and index loads): every request `open()` started is aborted. */
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
  /** Samples of the shard index tables held now (see `maxIndexSamples`). */
  indexSamplesHeld: number;
}
