import {
  abortSignal,
  arrayOf,
  checkPersistentStore,
  fn,
  nonNegativeInt,
  object,
  positiveInt,
  showValue,
  withDefault,
} from '@medfusion/core/internal';
import { resolveHttpOptions } from '../../remote/httpOptions.js';
import { urlLike } from '../../remote/resolveUrl.js';
import { checkUrlPolicy } from '../../remote/urlPolicy.js';
import type { WebDatasetSourceOptions } from './webDatasetOptions.js';

/** The read-ahead settings of a {@link WebDatasetSourceOptions}, checked, defaults filled in. */
export interface ReadAheadSettings {
  /** See {@link WebDatasetSourceOptions.lookahead}. */
  lookahead: number;
  /** See {@link WebDatasetSourceOptions.maxGap}. */
  maxGap: number;
  /** See {@link WebDatasetSourceOptions.maxRequestBytes}. */
  maxRequestBytes: number;
  /** Share of a shard's samples one read must want to read the shard whole (fixed, not an option). */
  wholeShare: number;
  /** See {@link WebDatasetSourceOptions.maxIndexSamples}. */
  maxIndexSamples: number;
}

/** A read that wants this share of a shard's samples reads it whole (and checks its sha256). */
const WHOLE_SHARE = 0.75;

/** `lookahead`, `maxGap`, `maxRequestBytes` and `maxIndexSamples` of `options`, checked. */
export function readAheadSettings(options: WebDatasetSourceOptions<unknown>): ReadAheadSettings {
  const lookahead = withDefault('lookahead', options.lookahead, 256, positiveInt);
  return {
    lookahead,
    maxIndexSamples: withDefault(
      'maxIndexSamples',
      options.maxIndexSamples,
      Math.max(65_536, 8 * lookahead),
      positiveInt,
    ),
    maxGap: withDefault('maxGap', options.maxGap, 65536, nonNegativeInt),
    maxRequestBytes: withDefault('maxRequestBytes', options.maxRequestBytes, 8 << 20, positiveInt),
    wholeShare: WHOLE_SHARE,
  };
}

/**
 * Every option of `WebDatasetSource.open`, checked before its first request
 * (TypeError / RangeError naming the option; `undefined` is the default, `null` is
 * refused like any other value of the wrong type). Returns `indexConcurrency`.
 */
export function checkWebDatasetOptions(options: WebDatasetSourceOptions<unknown>): number {
  object('options', options);
  const isUrl = (name: string, v: unknown) => urlLike(name, v);
  if (options.urls !== undefined) {
    arrayOf('urls', options.urls, isUrl, 'a non-empty array of shard URLs');
    if (options.urls.length === 0) {
      throw new TypeError(
        `urls must be a non-empty array of shard URLs, got ${showValue(options.urls)}`,
      );
    }
  }
  if (options.manifestUrl !== undefined) urlLike('manifestUrl', options.manifestUrl);
  if ((options.urls !== undefined) === (options.manifestUrl !== undefined)) {
    throw new TypeError('give exactly one of urls or manifestUrl');
  }
  readAheadSettings(options);
  withDefault('transform', options.transform, undefined, fn);
  withDefault('store', options.store, undefined, checkPersistentStore);
  withDefault('sidecar', options.sidecar, undefined, (name, v) =>
    v === false ? v : fn<(url: string) => string>(name, v),
  );
  withDefault('signal', options.signal, undefined, abortSignal);
  checkUrlPolicy(options.urlPolicy);
  resolveHttpOptions(options);
  checkTransformExecutor(options);
  return withDefault('indexConcurrency', options.indexConcurrency, 6, positiveInt);
}

/** `transformExecutor` must be a pool, and excludes `transform`. */
function checkTransformExecutor(options: WebDatasetSourceOptions<unknown>): void {
  const executor = options.transformExecutor;
  if (executor === undefined) return;
  if (executor === null || typeof executor !== 'object' || typeof executor.run !== 'function') {
    throw new TypeError(
      `transformExecutor must be a worker pool (createWorkerExecutor), got ${showValue(executor)}`,
    );
  }
  if (options.transform !== undefined) {
    throw new TypeError(
      'give transform or transformExecutor, not both (the workers of transformExecutor run their own transform: exposeTransform)',
    );
  }
}
