import { readText } from '../../remote/fetchWithTimeout.js';
import { defaultOriginLimiter } from '../../remote/OriginLimiter.js';
import { httpOptionsOf, RangeReader } from '../../remote/RangeReader.js';
import { SourceFormatError } from '../../remote/RemoteError.js';
import { locationHref, resolveUrl } from '../../remote/resolveUrl.js';
import { UrlScope } from '../../remote/urlPolicy.js';
import type { TarSampleEntry } from './tarIndex.js';
import type { WebDatasetSourceOptions } from './webDatasetOptions.js';

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

/** A shard as the source reads it: resolved URLs, its pinned reader, and its index once loaded. */
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
  /** The samples, in archive order, once the index is loaded. */
  samples?: TarSampleEntry[];
}

/**
 * Manifest parsing and validation: resolve the shard list of `options` (its
 * `urls`, or the manifest at `manifestUrl`, whose URLs must pass the
 * `urlPolicy`) into shards with their readers. Indices are not loaded here.
 */
export async function openShards(options: WebDatasetSourceOptions<unknown>): Promise<Shard[]> {
  const page = locationHref();
  const sidecar = options.sidecar ?? ((u: string) => `${u}.idx.json`);
  let entries: ShardManifestEntry[];
  let resolve: (ref: string, i: number, field: 'url' | 'index') => string;
  let scope: UrlScope | undefined;
  if (options.urls !== undefined) {
    if (!Array.isArray(options.urls) || options.urls.length === 0) {
      throw new TypeError(
        `urls must be a non-empty array of shard URLs, got ${String(options.urls)}`,
      );
    }
    entries = options.urls.map((u) => ({ url: String(u) }));
    resolve = (ref, i) => resolveUrl(`urls[${i}]`, ref, page);
  } else {
    const base = resolveUrl('manifestUrl', options.manifestUrl as string | URL, page);
    const manifestScope = new UrlScope(base, options.urlPolicy);
    scope = manifestScope;
    entries = await loadManifest(base, options);
    resolve = (ref, i, field) =>
      manifestScope.resolve(ref, `manifest ${options.manifestUrl}: shards[${i}].${field}`);
  }
  return entries.map((e, i) => {
    const url = resolve(e.url, i, 'url');
    const headers = !scope || scope.mayCarryCredentials(url) ? options.headers : undefined;
    const shard: Shard = {
      url,
      headers,
      reader: new RangeReader({
        ...httpOptionsOf(options),
        url,
        limiter: options.limiter ?? defaultOriginLimiter,
        headers,
      }),
    };
    if (e.sha256 !== undefined) shard.sha256 = e.sha256.toLowerCase();
    if (e.samples !== undefined) shard.declared = e.samples;
    if (e.index !== undefined) shard.sidecarUrl = resolve(e.index, i, 'index');
    else if (sidecar) shard.sidecarUrl = sidecar(url);
    return shard;
  });
}

/** Fetch and validate the manifest at `url`. */
async function loadManifest(
  url: string,
  options: WebDatasetSourceOptions<unknown>,
): Promise<ShardManifestEntry[]> {
  const reader = new RangeReader({ ...httpOptionsOf(options), url });
  const text = await readText(await reader.stream({ signal: options.signal }));
  let manifest: ShardManifest;
  try {
    manifest = JSON.parse(text);
  } catch (error) {
    const html = /^\s*</.test(text) ? ' but an HTML page (a single-page-app fallback?)' : '';
    throw new SourceFormatError(`manifest ${url} is not JSON${html}`, { cause: error });
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
