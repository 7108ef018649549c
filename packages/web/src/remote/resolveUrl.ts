/**
 * URL resolution shared by the remote sources and the range reader (web-internal,
 * not exported from the package): one place turns what a user or a manifest wrote
 * into an absolute URL, with one error message.
 */

import { badType, showValue } from '@medfusion/core/internal';

/** The page's or worker's own URL, against which relative URLs resolve; undefined outside a browser. */
export function locationHref(): string | undefined {
  return (globalThis as { location?: { href: string } }).location?.href;
}

/** A URL option: a string or a `URL` (a TypeError naming `name` otherwise, `null` included). */
export function urlLike(name: string, value: unknown): string | URL {
  if (typeof value !== 'string' && !(value instanceof URL)) throw badType(name, 'a URL', value);
  return value;
}

/**
 * `url` as an absolute href, resolved against `base` when given. Throws a
 * TypeError naming `name` and the value when it does not parse.
 */
export function resolveUrl(name: string, url: string | URL, base?: string): string {
  // never String(null): 'null' is a relative URL, and a JSON null would read the page's `null`
  urlLike(name, url);
  try {
    return new URL(String(url), base).href;
  } catch {
    const relative = base === undefined ? '' : ` or a URL relative to ${base}`;
    throw new TypeError(
      `${name} must be an absolute URL${relative}, got ${showValue(String(url))}`,
    );
  }
}
