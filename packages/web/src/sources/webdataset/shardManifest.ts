import {
  checkShardManifestEntry,
  parseShardManifest,
  type ShardManifestEntry,
  type TarSampleEntry,
} from '@medfusion/core';
import { fn, showValue, throwIfAborted, withDefault } from '@medfusion/core/internal';
import { readText } from '../../remote/fetchWithTimeout.js';
import { httpOptionsOf, RangeReader } from '../../remote/RangeReader.js';
import { locationHref, resolveUrl } from '../../remote/resolveUrl.js';
import { UrlScope } from '../../remote/urlPolicy.js';
import type { WebDatasetSourceOptions } from './webDatasetOptions.js';

/** A shard as the source reads it, once touched: resolved URLs, its pinned reader, its index once loaded. */
export interface Shard {
  /** Absolute shard URL. */
  url: string;
  /** The user's headers when the shard's origin may receive them, else none. */
  headers: Record<string, string> | undefined;
  /** Expected hex sha256 (lower case), from the manifest. */
  sha256?: string;
  /** Absolute URL of its sidecar index, when one may exist. */
  sidecarUrl?: string;
  /** Sample count the manifest declares. */
  declared?: number;
  /** Reads the shard (replaced by an ETag-pinned reader when a stored index is reused). */
  reader: RangeReader;
  /** The index load in flight. */
  loading?: Promise<TarSampleEntry[]>;
  /** The samples, in archive order, once the index is loaded (dropped again when the loader's budget is full). */
  samples?: TarSampleEntry[];
  /**
   * The index came from a sidecar the manifest's sha256 does not cover: every read
   * of a sample includes its tar headers, checked against the index.
   */
  checkHeaders?: boolean;
  /**
   * The shard was read whole and matched its sha256 and its index; its reader is
   * pinned to that ETag, so later range reads of it see the same bytes.
   */
  verified?: boolean;
}

/**
 * A relative path that provably resolves inside the base folder: no scheme, no
 * leading `/`, no `.`/`..` segment, no empty segment, and only characters URL
 * parsing keeps as they are (so no `%`-encoded separators either). The URL
 * policy accepts every such path; anything else goes through {@link UrlScope}.
 */
const PLAIN_RELATIVE = /^(?![./])(?!.*\/\.\.?(?:\/|$))[\w.~+=,@-]+(?:\/[\w.~+=,@-]+)*$/;

/** Entries checked between two yields to the event loop while a manifest is read (2–15 ms of work here). */
const ENTRIES_PER_TASK = 16_384;

/**
 * A new task: timers, input and rendering run before the caller goes on. A
 * posted message, not a timer: a hidden tab throttles chained timers to one a
 * second (then one a minute), which would stretch a 10^6-shard open to minutes.
 */
function nextTask(): Promise<void> {
  return new Promise((resolve) => {
    const channel = new MessageChannel();
    channel.port1.onmessage = () => {
      channel.port1.close();
      resolve();
    };
    channel.port2.postMessage(null);
  });
}

/** Many strings in one: their concatenation and where each ends (no per-string object). */
class PackedStrings {
  private readonly text: string;
  private readonly ends: Uint32Array;
  constructor(list: readonly string[]) {
    this.text = list.join('');
    this.ends = new Uint32Array(list.length);
    let at = 0;
    for (let i = 0; i < list.length; i++) {
      at += (list[i] as string).length;
      this.ends[i] = at;
    }
  }
  /** Number of strings. */
  get length(): number {
    return this.ends.length;
  }
  /** String `i`. */
  at(i: number): string {
    return this.text.slice(i === 0 ? 0 : (this.ends[i - 1] as number), this.ends[i] as number);
  }
}

/** sha256 digests of some shards, 32 bytes each, without a string per shard. */
class PackedDigests {
  private readonly bytes: Uint8Array;
  private readonly present: Uint8Array;
  constructor(n: number) {
    this.bytes = new Uint8Array(n * 32);
    this.present = new Uint8Array(n);
  }
  /** Keep the digest of shard `s` (64 hex digits, checked by the caller). */
  set(s: number, hex: string): void {
    for (let k = 0; k < 32; k++)
      this.bytes[s * 32 + k] = Number.parseInt(hex.slice(k * 2, k * 2 + 2), 16);
    this.present[s] = 1;
  }
  /** The digest of shard `s` as lower-case hex, or undefined. */
  get(s: number): string | undefined {
    if (this.present[s] === 0) return undefined;
    let hex = '';
    for (let k = 0; k < 32; k++)
      hex += (this.bytes[s * 32 + k] as number).toString(16).padStart(2, '0');
    return hex;
  }
}

/**
 * The shard list in compact per-shard arrays: URLs kept as written (packed in
 * one string), declared sample counts in one number array, digests (as bytes)
 * and index URLs only when a manifest gives them. A shard's URL is resolved, and its
 * {@link Shard} with its reader made, the first time the shard is touched.
 */
export class ShardTable {
  /** Number of shards. */
  readonly count: number;
  private readonly touched = new Map<number, Shard>();
  private readonly sidecar: false | ((shardUrl: string) => string);

  /**
   * @param refs shard URLs as written (resolved already when the user gave them in `urls`)
   * @param counts declared sample count per shard, -1 when not declared
   * @param digests sha256 of shards, when the manifest gives any
   * @param indexRefs sidecar URL per shard as written (`''`: none), when the manifest gives any
   * @param scope the manifest's URL scope (undefined for `urls`: the user's own URLs)
   * @param where names the manifest in errors
   * @param options HTTP options and the `sidecar` rule
   */
  constructor(
    private readonly refs: PackedStrings,
    private readonly counts: readonly number[],
    private readonly digests: PackedDigests | undefined,
    private readonly indexRefs: PackedStrings | undefined,
    private readonly scope: UrlScope | undefined,
    private readonly where: string,
    private readonly options: WebDatasetSourceOptions<unknown>,
  ) {
    this.count = refs.length;
    this.sidecar = withDefault(
      'sidecar',
      options.sidecar,
      (u: string) => `${u}.idx.json`,
      (_, v) => (v === false ? false : fn<(shardUrl: string) => string>('sidecar', v)),
    );
  }

  /** The sample count the manifest declares for shard `s`, or undefined. */
  declared(s: number): number | undefined {
    const n = this.counts[s] as number;
    return n < 0 ? undefined : n;
  }

  /** Every shard's declared sample count (the array itself), or undefined when one is missing. */
  declaredSizes(): readonly number[] | undefined {
    for (let s = 0; s < this.count; s++) if ((this.counts[s] as number) < 0) return undefined;
    return this.counts;
  }

  /** Shard `s`, resolved (through the URL policy) and given its reader on first touch. */
  shard(s: number): Shard {
    let shard = this.touched.get(s);
    if (shard) return shard;
    const url = this.resolve(this.refs.at(s), s, 'url');
    const scope = this.scope;
    const headers = !scope || scope.mayCarryCredentials(url) ? this.options.headers : undefined;
    shard = {
      url,
      headers,
      reader: new RangeReader({
        ...httpOptionsOf(this.options),
        url,
        headers,
      }),
    };
    const digest = this.digests?.get(s);
    if (digest !== undefined) shard.sha256 = digest;
    const declared = this.declared(s);
    if (declared !== undefined) shard.declared = declared;
    const index = this.indexRefs?.at(s);
    if (index) shard.sidecarUrl = this.resolve(index, s, 'index');
    else if (this.sidecar) shard.sidecarUrl = this.sidecar(url);
    this.touched.set(s, shard);
    return shard;
  }

  /** The shards touched so far. */
  touchedShards(): IterableIterator<Shard> {
    return this.touched.values();
  }

  private resolve(ref: string, s: number, field: 'url' | 'index'): string {
    return this.scope ? this.scope.resolve(ref, `${this.where}: shards[${s}].${field}`) : ref;
  }
}

/**
 * Manifest parsing and validation: the shard list of `options` (its `urls`,
 * or the manifest at `manifestUrl`) as a {@link ShardTable}. One pass checks
 * every entry, including its URLs against the `urlPolicy` (a refused URL
 * fails here, before any shard request); nothing is resolved or read per
 * shard until the shard is touched. Indices are not loaded here. The pass
 * yields to the event loop every {@link ENTRIES_PER_TASK} entries, so the
 * page's longest block is reading and parsing the manifest text itself.
 */
export async function openShards(options: WebDatasetSourceOptions<unknown>): Promise<ShardTable> {
  const page = locationHref();
  if (options.urls !== undefined) {
    if (!Array.isArray(options.urls) || options.urls.length === 0) {
      throw new TypeError(
        `urls must be a non-empty array of shard URLs, got ${showValue(options.urls)}`,
      );
    }
    const refs = options.urls.map((u, i) => resolveUrl(`urls[${i}]`, u, page));
    const counts = refs.map(() => -1);
    const packed = new PackedStrings(refs);
    return new ShardTable(packed, counts, undefined, undefined, undefined, 'urls', options);
  }
  const base = resolveUrl('manifestUrl', options.manifestUrl as string | URL, page);
  const scope = new UrlScope(base, options.urlPolicy);
  const where = `manifest ${String(options.manifestUrl)}`;
  const shards = await loadManifest(base, options);
  const n = shards.length;
  const refs: string[] = [];
  const counts: number[] = [];
  let digests: PackedDigests | undefined;
  let indexRefs: string[] | undefined;
  for (let i = 0; i < n; i++) {
    if (i % ENTRIES_PER_TASK === ENTRIES_PER_TASK - 1) {
      await nextTask();
      throwIfAborted(options.signal);
    }
    const e = shards[i] as ShardManifestEntry;
    checkShardManifestEntry(e, i, base);
    if (!PLAIN_RELATIVE.test(e.url)) scope.resolve(e.url, `${where}: shards[${i}].url`);
    refs.push(e.url);
    counts.push(e.samples ?? -1);
    if (e.sha256 !== undefined) {
      digests ??= new PackedDigests(n);
      digests.set(i, e.sha256);
    }
    if (e.index !== undefined) {
      if (!PLAIN_RELATIVE.test(e.index)) scope.resolve(e.index, `${where}: shards[${i}].index`);
      indexRefs ??= new Array<string>(i).fill('');
      indexRefs[i] = e.index;
    } else {
      indexRefs?.push('');
    }
  }
  const packedIndex = indexRefs && new PackedStrings(indexRefs);
  return new ShardTable(
    new PackedStrings(refs),
    counts,
    digests,
    packedIndex,
    scope,
    where,
    options,
  );
}

/** Fetch the manifest at `url` and check its shape (entries are checked by {@link openShards}). */
async function loadManifest(
  url: string,
  options: WebDatasetSourceOptions<unknown>,
): Promise<ShardManifestEntry[]> {
  const reader = new RangeReader({ ...httpOptionsOf(options), url });
  const text = await readText(await reader.stream({ signal: options.signal }));
  return parseShardManifest(text, url).shards;
}
