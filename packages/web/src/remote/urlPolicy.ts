import { MedFusionError } from '@medfusion/core';
import {
  arrayOf,
  bool,
  object,
  registerErrorClass,
  showValue,
  withDefault,
} from '@medfusion/core/internal';
import { redactUrl } from './redactUrl.js';

/**
 * Which URLs written in a data file (a CSV manifest row, a shard manifest entry)
 * may be fetched. Manifests come from strangers: by default a URL must resolve
 * under the base the user gave (the image folder, the manifest's folder), and
 * the user's credentials (`headers`, `requestInit`) only ever go to the origins
 * the user named. Anything else is this explicit opt-in.
 *
 * @example
 * // images on a CDN next to the manifest's own origin; the CDN gets no Authorization header
 * { allowOrigins: ['https://cdn.example.org'] }
 */
export interface UrlPolicy {
  /**
   * Further origins a manifest URL may point at (`'https://cdn.example.org'`), or `'*'` for
   * any http(s) origin. Requests to them never carry the user's headers or cookies.
   * @default [] (only URLs under the base)
   */
  allowOrigins?: readonly string[];
  /**
   * Accept URLs on the base's own origin that resolve outside the base folder
   * (`../other.png`, `/elsewhere/x.png`). Credentials still go with them (same origin).
   * @default false
   */
  allowOutsideBase?: boolean;
}

/** A URL from a data file resolves outside what the {@link UrlPolicy} allows; nothing was fetched. */
export class UrlNotAllowedError extends MedFusionError {
  /** The resolved URL that was refused. */
  readonly url: string;
  /**
   * @param hint how to allow it, for the message
   */
  constructor(
    url: string,
    where: string,
    reason: string,
    index?: number,
    hint = 'allow it with the urlPolicy option',
  ) {
    url = redactUrl(url);
    super(
      'URL_NOT_ALLOWED',
      `${where}: ${url} is ${reason}; nothing was fetched (${hint})`,
      index === undefined ? undefined : { index },
    );
    this.name = 'UrlNotAllowedError';
    this.url = url;
  }
}
registerErrorClass('UrlNotAllowedError', UrlNotAllowedError);

/**
 * Check a {@link UrlPolicy} (TypeError naming `urlPolicy.allowOrigins[i]` and so on; `undefined`
 * is the default policy) and return its origins (`'*'` kept) and `allowOutsideBase`.
 */
export function checkUrlPolicy(policy: UrlPolicy | undefined): {
  origins: string[];
  outsideBase: boolean;
} {
  if (policy === undefined) return { origins: [], outsideBase: false };
  object('urlPolicy', policy);
  return {
    origins: withDefault('urlPolicy.allowOrigins', policy.allowOrigins, [], (name, v) =>
      arrayOf(name, v, originOption, 'an array of origins'),
    ),
    outsideBase: withDefault('urlPolicy.allowOutsideBase', policy.allowOutsideBase, false, bool),
  };
}

function originOption(name: string, value: unknown): string {
  if (value === '*') return '*';
  if (typeof value === 'string') {
    try {
      const u = new URL(value);
      if ((u.protocol === 'http:' || u.protocol === 'https:') && u.origin !== 'null') {
        return u.origin;
      }
    } catch {
      // reported below
    }
  }
  throw new TypeError(
    `${name} must be an http(s) origin like 'https://cdn.example.org' or '*', got ${showValue(value)}`,
  );
}

/** The folder of a URL: everything up to and including its last `/`. */
function folderOf(href: string): string {
  const u = new URL(href);
  u.search = '';
  u.hash = '';
  return u.href.slice(0, u.href.lastIndexOf('/') + 1);
}

/**
 * Resolves URLs written in an untrusted data file against a trusted base and
 * applies a {@link UrlPolicy}: one place decides what may be fetched and which
 * requests may carry credentials.
 */
export class UrlScope {
  private readonly folder: string;
  private readonly origins: ReadonlySet<string>;
  private readonly anyOrigin: boolean;
  private readonly outsideBase: boolean;
  private readonly trusted: ReadonlySet<string>;
  private readonly baseOrigin: string;

  /**
   * @param base absolute URL of the trusted base (a folder, or a file whose folder is the base)
   * @param policy the user's opt-ins
   * @param trustedOrigins origins the user named, which may receive credentials (the base's is one)
   */
  constructor(base: string, policy: UrlPolicy | undefined, trustedOrigins: readonly string[] = []) {
    const { origins, outsideBase } = checkUrlPolicy(policy);
    this.anyOrigin = origins.includes('*');
    this.origins = new Set(origins);
    this.outsideBase = outsideBase;
    this.folder = folderOf(base);
    this.baseOrigin = new URL(this.folder).origin;
    this.trusted = new Set([new URL(base).origin, ...trustedOrigins]);
  }

  /**
   * Resolve `ref` (relative or absolute) against the base. Throws
   * {@link UrlNotAllowedError} naming `where` when the policy refuses it.
   */
  resolve(ref: string, where: string, index?: number): string {
    let url: URL;
    try {
      url = new URL(ref, this.folder);
    } catch {
      throw new UrlNotAllowedError(JSON.stringify(ref), where, 'not a valid URL', index);
    }
    const href = url.href;
    if (url.protocol !== 'http:' && url.protocol !== 'https:' && url.origin !== this.baseOrigin) {
      throw new UrlNotAllowedError(href, where, `a ${url.protocol} URL`, index);
    }
    if (url.origin === this.baseOrigin) {
      // Encoded separators would let a server see a path outside the folder.
      const rest = href.startsWith(this.folder) ? href.slice(this.folder.length) : undefined;
      if (rest !== undefined && !/%2f|%5c/i.test(rest)) return href;
      if (this.outsideBase) return href;
      throw new UrlNotAllowedError(href, where, `outside the base folder ${this.folder}`, index);
    }
    if (this.anyOrigin || this.origins.has(url.origin)) return href;
    throw new UrlNotAllowedError(href, where, `on another origin than ${this.folder}`, index);
  }

  /** Whether requests to `url` may carry the user's credentials (its origin is one the user named). */
  mayCarryCredentials(url: string): boolean {
    return this.trusted.has(new URL(url).origin);
  }
}
