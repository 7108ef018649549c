import type { Clock } from '@medfusion/core';
import { fn, positiveMs, raceAbort, showValue, withDefault } from '@medfusion/core/internal';
import { SignUrlError } from './RemoteError.js';
import type { SignUrl, SignUrlOptions } from './rangeReaderOptions.js';
import { UrlNotAllowedError } from './urlPolicy.js';

/** What {@link UrlSigner.refresh} gives a read whose signed URL was refused. */
export interface Refreshed {
  /** The URL to send the read to. */
  signed: string;
  /** True when another read's hook call signed it, false when the hook was called for this read. */
  shared: boolean;
}

/** Most objects whose signed URL one hook's cache keeps (the least recently used is dropped). */
const MAX_ENTRIES = 10_000;

interface Entry {
  /** Settles with the signed URL. */
  promise: Promise<string>;
  /** The signed URL once the hook answered. */
  signed: string | undefined;
}

/**
 * The signed URLs of one `signUrl` hook, per object URL, in memory only. Concurrent reads of
 * an object share one hook call; a refused URL is replaced by one new hook call however
 * many reads saw it refused.
 */
export class UrlSigner {
  private readonly entries = new Map<string, Entry>();

  /** @param hook the user's hook */
  constructor(private readonly hook: SignUrl) {}

  /** The signed URL of `url`: the one kept for it, or a fresh one from the hook. */
  signed(url: string, limits: SignLimits, signal: AbortSignal | undefined): Promise<string> {
    const entry = this.entries.get(url);
    if (!entry) return raceAbort(this.sign(url, false, limits), signal);
    // Most recently used last: the least recently used object is the one dropped.
    this.entries.delete(url);
    this.entries.set(url, entry);
    return raceAbort(entry.promise, signal);
  }

  /**
   * A fresh signed URL of `url` after `stale` was refused as expired. Reads that saw `stale`
   * refused while a fresh URL is on its way (or already here) get that one (`shared`: another
   * read's hook call signed it, maybe long before this read's refusal came back).
   */
  async refresh(
    url: string,
    stale: string,
    limits: SignLimits,
    signal: AbortSignal | undefined,
  ): Promise<Refreshed> {
    const entry = this.entries.get(url);
    const shared = entry !== undefined && entry.signed !== stale;
    const fresh = shared ? entry.promise : this.sign(url, true, limits);
    return { signed: await raceAbort(fresh, signal), shared };
  }

  private sign(url: string, refresh: boolean, limits: SignLimits): Promise<string> {
    const controller = new AbortController();
    const { timeoutMs: ms, clock } = limits;
    const timer =
      ms === Number.POSITIVE_INFINITY
        ? undefined
        : clock.setTimeout(
            () =>
              controller.abort(
                new SignUrlError(url, `did not settle within ${ms} ms (signTimeoutMs)`),
              ),
            ms,
          );
    const entry: Entry = { promise: Promise.resolve(''), signed: undefined };
    entry.promise = (async () => {
      try {
        let result: unknown;
        try {
          const call = Promise.resolve().then(() =>
            this.hook(url, { signal: controller.signal, refresh }),
          );
          result = await raceAbort(call, controller.signal);
        } catch (error) {
          if (controller.signal.aborted) throw controller.signal.reason;
          throw new SignUrlError(url, 'threw', { cause: error });
        }
        entry.signed = checkSigned(url, result);
        return entry.signed;
      } catch (error) {
        // A failed call is not kept: the next read asks the hook again.
        if (this.entries.get(url) === entry) this.entries.delete(url);
        throw error;
      } finally {
        if (timer !== undefined) clock.clearTimeout(timer);
      }
    })();
    entry.promise.catch(() => {});
    this.entries.delete(url);
    if (this.entries.size >= MAX_ENTRIES) {
      this.entries.delete(this.entries.keys().next().value as string);
    }
    this.entries.set(url, entry);
    return entry.promise;
  }
}

/** The hook's answer as an absolute URL on `url`'s origin (the URL policy of signed URLs). */
function checkSigned(url: string, result: unknown): string {
  if (typeof result !== 'string' && !(result instanceof URL)) {
    throw new SignUrlError(url, `returned ${showValue(result)} instead of a URL`);
  }
  let signed: URL;
  try {
    signed = new URL(String(result));
  } catch {
    throw new SignUrlError(url, 'returned a string that is not an absolute URL');
  }
  const origin = new URL(url).origin;
  if (signed.origin !== origin) {
    throw new UrlNotAllowedError(
      signed.href,
      `signUrl(${url})`,
      `on another origin than the object's ${origin}`,
      undefined,
      'a signed URL must stay on the origin of the URL it signs',
    );
  }
  return signed.href;
}

const signers = new WeakMap<SignUrl, UrlSigner>();

/** How long one call of a hook may take. */
export interface SignLimits {
  /** See {@link SignUrlOptions.signTimeoutMs}. */
  timeoutMs: number;
  /** Time source of the timeout. */
  clock: Clock;
}

/** A reader's signing: the hook's shared {@link UrlSigner} and this reader's limits. */
export interface Signing {
  /** Shared by every reader given the same hook. */
  signer: UrlSigner;
  /** This reader's limits on a hook call. */
  limits: SignLimits;
}

/**
 * The signing of `options` (the {@link UrlSigner} of `options.signUrl`, one per hook, so
 * readers and sources given the same hook share its signed URLs), or undefined without a
 * hook. Throws a TypeError / RangeError naming a bad `signUrl` / `signTimeoutMs`.
 */
export function signingOf(options: SignUrlOptions, clock: Clock): Signing | undefined {
  const timeoutMs = withDefault('signTimeoutMs', options.signTimeoutMs, 30_000, positiveMs);
  const hook = withDefault('signUrl', options.signUrl, undefined, fn<SignUrl>);
  if (hook === undefined) return undefined;
  let signer = signers.get(hook);
  if (!signer) {
    signer = new UrlSigner(hook);
    signers.set(hook, signer);
  }
  return { signer, limits: { timeoutMs, clock } };
}
