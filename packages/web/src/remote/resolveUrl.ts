/**
 * URL resolution shared by the remote sources and the range reader (web-internal,
 * not exported from the package): one place turns what a user or a manifest wrote
 * into an absolute URL, with one error message.
 */

import { showValue } from '@medfusion/core/internal';

/** The page's or worker's own URL, against which relative URLs resolve; undefined outside a browser. */
export function locationHref(): string | undefined {
  return (globalThis as { location?: { href: string } }).location?.href;
}

/**
 * `url` as an absolute href, resolved against `base` when given. Throws a
 * TypeError naming `name` and the value when it does not parse.
 */
export function resolveUrl(name: string, url: string | URL, base?: string): string {
  try {
    return new URL(String(url), base).href;
  } catch {
    const relative = base === undefined ? '' : ` or a URL relative to ${base}`;
    throw new TypeError(
      `${name} must be an absolute URL${relative}, got ${showValue(String(url))}`,
    );
  }
}
