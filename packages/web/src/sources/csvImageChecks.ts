import {
  arrayOf,
  bool,
  DEFAULT_MISSING_VALUES,
  fn,
  object,
  oneOfValues,
  positiveInt,
  string,
  withDefault,
} from '@medfusion/core/internal';
import type { RequestTimeouts } from '../remote/fetchWithTimeout.js';
import { resolveRequestTimeouts } from '../remote/fetchWithTimeout.js';
import { type Signing, signingOf } from '../remote/UrlSigner.js';
import { checkUrlPolicy } from '../remote/urlPolicy.js';
import type { CsvImageDatasetOptions, CsvImageSample } from './csvImageOptions.js';
import { ImageDecoder } from './decodeImage.js';

/** The options of `CsvImageDataset.open` checked, with the defaults filled in. */
export interface CsvImageSettings<T> {
  /** See {@link CsvImageDatasetOptions.imageColumn}. */
  imageColumn: string;
  /** See {@link CsvImageDatasetOptions.labelColumn}. */
  labelColumn: string;
  /** See {@link CsvImageDatasetOptions.labelType}. */
  labelType: 'auto' | 'number' | 'class';
  /** See {@link CsvImageDatasetOptions.missingValues}. */
  missingValues: ReadonlySet<string>;
  /** See {@link CsvImageDatasetOptions.tabularColumns}; undefined: the numeric columns. */
  tabularColumns: readonly string[] | undefined;
  /** See {@link CsvImageDatasetOptions.standardizeTabular}. */
  standardizeTabular: boolean;
  /** Decodes with `channels`, `width`, `height`, `maxPixels`. */
  decoder: ImageDecoder;
  /** See {@link CsvImageDatasetOptions.maxLineBytes}. */
  maxLineBytes: number;
  /** `fetch`, or the page's. */
  fetchFn: typeof fetch;
  /** See {@link CsvImageDatasetOptions.requestInit}. */
  requestInit: RequestInit | undefined;
  /** The request timeouts and their clock. */
  timeouts: RequestTimeouts;
  /** The `signUrl` hook's signing, if any. */
  signing: Signing | undefined;
  /** See {@link CsvImageDatasetOptions.transform}. */
  transform: ((s: CsvImageSample, i: number) => T | Promise<T>) | undefined;
}

const names = (name: string, v: unknown) => arrayOf(name, v, string, 'an array of strings');

/**
 * Every option of `CsvImageDataset.open` but the two URLs, checked before its first
 * request (TypeError / RangeError naming the option; `undefined` is the default).
 */
export function checkCsvImageOptions<T>(options: CsvImageDatasetOptions<T>): CsvImageSettings<T> {
  checkUrlPolicy(options.urlPolicy);
  const timeouts = resolveRequestTimeouts(options);
  return {
    imageColumn: withDefault('imageColumn', options.imageColumn, 'image', string),
    labelColumn: withDefault('labelColumn', options.labelColumn, 'label', string),
    labelType: withDefault('labelType', options.labelType, 'auto', (n, v) =>
      oneOfValues(n, v, ['auto', 'number', 'class'] as const),
    ),
    missingValues: new Set(
      withDefault('missingValues', options.missingValues, DEFAULT_MISSING_VALUES, names),
    ),
    tabularColumns: withDefault('tabularColumns', options.tabularColumns, undefined, names),
    standardizeTabular: withDefault('standardizeTabular', options.standardizeTabular, false, bool),
    decoder: new ImageDecoder({
      ...(options.channels === undefined ? {} : { channels: options.channels }),
      ...(options.width === undefined ? {} : { width: options.width }),
      ...(options.height === undefined ? {} : { height: options.height }),
      ...(options.maxPixels === undefined ? {} : { maxPixels: options.maxPixels }),
    }),
    maxLineBytes: withDefault('maxLineBytes', options.maxLineBytes, 2 ** 23, positiveInt),
    fetchFn: withDefault(
      'fetch',
      options.fetch,
      globalThis.fetch?.bind(globalThis),
      fn<typeof fetch>,
    ),
    requestInit: withDefault('requestInit', options.requestInit, undefined, (n, v) =>
      object(n, v as RequestInit),
    ),
    timeouts,
    signing: signingOf(options, timeouts.clock),
    transform: withDefault(
      'transform',
      options.transform,
      undefined,
      fn<CsvImageSettings<T>['transform'] & object>,
    ),
  };
}
