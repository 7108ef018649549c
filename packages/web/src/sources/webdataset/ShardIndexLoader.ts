import {
  checkTarMembers,
  decodeTarIndex,
  encodeTarIndex,
  groupSamples,
  retry,
  type TarMember,
  type TarSampleEntry,
} from '@medfusion/core';
import { isRetryable, raceAbort } from '@medfusion/core/internal';
import { readText } from '../../remote/fetchWithTimeout.js';
import { httpOptionsOf, RangeReader } from '../../remote/RangeReader.js';
import {
  ChecksumMismatchError,
  ObjectChangedError,
  SourceFormatError,
} from '../../remote/RemoteError.js';
import { sha256Hex } from '../../remote/sha256.js';
import { indexTarStream } from './indexTarStream.js';
import type { Shard, ShardTable } from './shardManifest.js';
import { isPlainLayout } from './shardReads.js';
import type { WebDatasetSourceOptions } from './webDatasetOptions.js';

/** Run `work`; a format error that does not name `url` is thrown again naming it. */
async function namingUrl<T>(url: string, work: () => T | Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    if (error instanceof SourceFormatError && !error.message.includes(url)) {
      throw new SourceFormatError(`${url}: ${error.message}`, { cause: error });
    }
    throw error;
  }
}

/**
 * Shard-index loading: a shard's sample table comes from the store (when its
 * ETag still matches), a sidecar file, or one streaming pass over the shard
 * (sha256-verified when the manifest gives a digest); built indices are put
 * in the store. One load per shard at a time (memoized on the shard).
 * Sidecar and stored indices are checked on load (`checkTarMembers`, duplicate
 * members): a bad sidecar is a `BAD_FORMAT` error naming its URL; a bad stored
 * index is dropped and the index rebuilt from the shard, as a stale one is.
 * When the manifest gives the shard's sha256, a sidecar is used only if it
 * describes a plain ustar archive ({@link isPlainLayout}) and the shard fits one
 * read; the shard is then marked `checkHeaders`: its first read is the whole
 * shard, checked against the sha256 and every header against the index before a
 * sample is returned, and later reads check the headers of what they return.
 * Otherwise the shard is streamed once, sha256-verified, to build its index.
 * Loaded tables are kept up to `budget` samples in all, least recently used
 * dropped first (they load again when asked for), so memory does not grow with
 * the data set.
 */
export class ShardIndexLoader {
  /** Shard indices built by streaming a shard. */
  indexBuilds = 0;
  /** Shard indices read from a sidecar file. */
  sidecarHits = 0;
  /** Shard indices read from the store. */
  storeHits = 0;
  /** Shards whose tables are loaded, least recently used first, with their sample counts. */
  private readonly loaded = new Map<number, number>();
  private loadedSamples = 0;

  /** Samples of the tables held now. */
  get samplesHeld(): number {
    return this.loadedSamples;
  }

  /**
   * @param shards the shard table; each touched shard's `loading` / `samples` / `reader` are updated here
   * @param options the source's options (store, HTTP options)
   * @param signal aborts the loads themselves (the source's close)
   * @param budget samples of loaded tables kept in all (the most recently used table is always kept)
   * @param maxRequestBytes largest read: a shard with a sha256 larger than this is indexed by streaming
   */
  constructor(
    private readonly shards: ShardTable,
    private readonly options: WebDatasetSourceOptions<unknown>,
    private readonly signal: AbortSignal,
    private readonly budget = Number.POSITIVE_INFINITY,
    private readonly maxRequestBytes = 8 << 20,
  ) {}

  /** The samples of shard `s` (memoized); `signal` stops this caller's wait, not the load. */
  shardIndex(s: number, signal: AbortSignal | undefined): Promise<TarSampleEntry[]> {
    const shard = this.shards.shard(s);
    if (shard.samples) {
      const n = this.loaded.get(s);
      if (n !== undefined && this.loaded.size > 1) {
        this.loaded.delete(s); // most recently used last
        this.loaded.set(s, n);
      }
      return Promise.resolve(shard.samples);
    }
    if (!shard.loading) {
      shard.loading = this.loadIndex(shard).then(
        (samples) => {
          if (shard.declared !== undefined && samples.length !== shard.declared) {
            throw new SourceFormatError(
              `${shard.url} holds ${samples.length} samples, the manifest says ${shard.declared}`,
            );
          }
          shard.samples = samples;
          this.keep(s, samples.length);
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

  /** Count shard `s`'s table as loaded; drop the least recently used beyond the budget. */
  private keep(s: number, n: number): void {
    this.loaded.set(s, n);
    this.loadedSamples += n;
    for (const [old, count] of this.loaded) {
      if (this.loadedSamples <= this.budget || old === s) break;
      this.loaded.delete(old);
      this.loadedSamples -= count;
      const dropped = this.shards.shard(old);
      dropped.samples = undefined;
      dropped.loading = undefined;
    }
  }

  private async loadIndex(shard: Shard): Promise<TarSampleEntry[]> {
    const signal = this.signal;
    shard.checkHeaders = false; // set again below when this load trusts a sidecar
    const store = this.options.store;
    const key = `medfusion:wds-index:v1:${shard.url}`;
    if (store) {
      const stored = await store.get(key);
      if (stored) {
        const samples = await this.validateStored(shard, stored, signal);
        if (samples) {
          this.storeHits++;
          return samples;
        }
      }
    }
    let members: TarMember[] | undefined;
    let sha256: string | undefined;
    let source = shard.url;
    if (shard.sidecarUrl) {
      members = await this.readSidecar(shard.sidecarUrl, shard.headers, signal);
      // Under a sha256, only a sidecar every claim of which the first read (the whole
      // shard, in one request) can check.
      if (members && shard.sha256 && !(await this.checkable(shard, members, signal))) {
        members = undefined;
      }
      if (members) {
        source = shard.sidecarUrl;
        if (shard.reader.size !== undefined) checkTarMembers(members, source, shard.reader.size);
        if (shard.sha256) shard.checkHeaders = true;
        this.sidecarHits++;
      }
    }
    if (!members) {
      const built = await retry(() => this.buildIndex(shard, signal), {
        ...this.options.retry,
        signal,
        shouldRetry: isRetryable,
      });
      members = built;
      sha256 = shard.sha256;
      this.indexBuilds++;
    }
    const samples = groupSamples(members, source);
    if (store) {
      const extra: { etag?: string; size?: number; sha256?: string } = {};
      if (shard.reader.etag !== undefined) extra.etag = shard.reader.etag;
      if (shard.reader.size !== undefined) extra.size = shard.reader.size;
      if (sha256 !== undefined) extra.sha256 = sha256;
      await store.put(key, encodeTarIndex(members, extra));
    }
    return samples;
  }

  /**
   * Whether a sidecar's `members` can stand in for streaming a shard with a
   * sha256: a plain ustar layout of a shard that one request of at most
   * `maxRequestBytes` reads whole (its size learnt with a probe when unknown).
   */
  private async checkable(
    shard: Shard,
    members: TarMember[],
    signal: AbortSignal,
  ): Promise<boolean> {
    const size = shard.reader.size ?? (await shard.reader.probe({ signal })).size;
    return size <= this.maxRequestBytes && isPlainLayout(members, size);
  }

  /**
   * The samples of a stored index still valid for the object as it is now (same
   * ETag), or undefined: stale, or failing the checks of a sidecar (rebuilt then).
   */
  private async validateStored(
    shard: Shard,
    stored: Uint8Array,
    signal: AbortSignal,
  ): Promise<TarSampleEntry[] | undefined> {
    let file: ReturnType<typeof decodeTarIndex>['file'];
    let samples: TarSampleEntry[];
    try {
      const decoded = decodeTarIndex(stored, `stored index of ${shard.url}`);
      file = decoded.file;
      samples = groupSamples(decoded.members, `stored index of ${shard.url}`);
    } catch {
      return undefined;
    }
    if (shard.sha256 && file.sha256 !== shard.sha256) return undefined;
    if (file.etag === undefined) return samples;
    const reader = new RangeReader({
      ...httpOptionsOf(this.options),
      url: shard.url,
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
    return samples;
  }

  private async readSidecar(
    url: string,
    headers: Record<string, string> | undefined,
    signal: AbortSignal,
  ): Promise<TarMember[] | undefined> {
    const reader = new RangeReader({ ...httpOptionsOf(this.options), url, headers });
    let text: string;
    try {
      text = await readText(await reader.stream({ signal }));
      if (/^\s*</.test(text)) {
        throw new SourceFormatError(
          `sidecar ${url} is an HTML page, not a tar index (a single-page-app fallback for a missing file?)`,
        );
      }
    } catch (error) {
      if (
        (error as { status?: number }).status === 404 ||
        (error as { status?: number }).status === 403
      ) {
        return undefined;
      }
      throw error;
    }
    return namingUrl(url, () => decodeTarIndex(text, url).members);
  }

  private async buildIndex(shard: Shard, signal: AbortSignal): Promise<TarMember[]> {
    const stream = await shard.reader.stream({ signal });
    const chunks: Uint8Array[] | undefined = shard.sha256 ? [] : undefined;
    const members = await namingUrl(shard.url, () =>
      indexTarStream(stream, chunks ? (c) => chunks.push(c) : undefined),
    );
    if (shard.sha256 && chunks) {
      const actual = await sha256Hex(chunks);
      if (actual !== shard.sha256) throw new ChecksumMismatchError(shard.url, shard.sha256, actual);
    }
    return members;
  }
}
