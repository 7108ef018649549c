import type { HttpOptions } from '../../remote/RangeReader.js';
import type { UrlScope } from '../../remote/urlPolicy.js';
import type { FileBytes } from './FileBytes.js';
import { fetchHead, fetchObject } from './fetchObject.js';

/**
 * Files at absolute URLs, fetched with `RangeReader`'s retries, origin limiter
 * and headers; the headers only go to URLs `scope` lets carry credentials.
 */
export class UrlFiles implements FileBytes {
  readonly count: number;
  /** The URLs: a URL source's fingerprint is made of them. */
  readonly identity: readonly string[];
  private readonly http: HttpOptions;
  private readonly anonymous: HttpOptions;

  constructor(
    private readonly urls: readonly string[],
    private readonly scope: UrlScope,
    http: HttpOptions,
  ) {
    this.count = urls.length;
    this.identity = urls;
    this.http = http;
    this.anonymous = { ...http, headers: {} };
  }

  nameOf(i: number): string {
    return this.urls[i] as string;
  }

  read(i: number, signal?: AbortSignal): Promise<Uint8Array> {
    const url = this.nameOf(i);
    return fetchObject(url, this.httpFor(url), signal);
  }

  head(i: number, max: number, signal?: AbortSignal): Promise<{ bytes: Uint8Array; size: number }> {
    const url = this.nameOf(i);
    return fetchHead(url, max, this.httpFor(url), signal);
  }

  private httpFor(url: string): HttpOptions {
    return this.scope.mayCarryCredentials(url) ? this.http : this.anonymous;
  }
}
