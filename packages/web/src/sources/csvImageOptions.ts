import type { RequestTimeoutOptions } from '../remote/fetchWithTimeout.js';
import type { SignUrlOptions } from '../remote/rangeReaderOptions.js';
import type { UrlNotAllowedError, UrlPolicy } from '../remote/urlPolicy.js';
import type { CsvFormatError } from './csvManifest.js';
import type { ImageDecoderOptions } from './decodeImage.js';

/** One sample of a {@link CsvImageDataset}: the reference's `(image, tabular, label)`. */
export interface CsvImageSample {
  /** Pixels in [0, 1], row-major, `channels` values per pixel. */
  image: Float32Array;
  /** The tabular features, in {@link CsvImageDataset.tabularColumns} order. */
  tabular: Float32Array;
  /** The class index (numeric labels as written; text labels by order of {@link CsvImageDataset.classes}). */
  label: number;
}

/**
 * Options of {@link CsvImageDataset.open}. The manifest and every image request have the
 * timeouts of {@link RequestTimeoutOptions} (30 s for the headers, 30 s without body bytes);
 * with `signUrl` ({@link SignUrlOptions}) the manifest and every image are fetched from the URL
 * the hook signs for them.
 */
export interface CsvImageDatasetOptions<T = CsvImageSample>
  extends RequestTimeoutOptions,
    SignUrlOptions {
  /** URL of the CSV manifest (one row per sample, a header row first). */
  csvUrl: string | URL;
  /** Base URL the image column is resolved against (e.g. `/data/images/`). */
  imageBaseUrl: string | URL;
  /**
   * Maps a decoded sample to what `get` returns (the reference's `transform`).
   * Runs where the sample is loaded: in a Web Worker when the dataset lives in one.
   */
  transform?: (sample: CsvImageSample, index: number) => T | Promise<T>;
  /**
   * Column holding the image file name, relative to `imageBaseUrl`.
   * @default 'image'
   */
  imageColumn?: string;
  /**
   * Column holding the label (a number, or text mapped to a class index).
   * @default 'label'
   */
  labelColumn?: string;
  /**
   * How labels are read. `'number'`: every label is a number (class index or regression
   * target). `'class'`: labels are class names, numbered by first appearance (see
   * {@link CsvImageDataset.classes}). `'auto'`: `'number'` when more than half of the rows
   * hold a number, else `'class'`. A row whose label is missing (see `missingValues`) or, in
   * number mode, not a number is an invalid row: it never changes the other rows' labels,
   * it is listed in {@link CsvImageDataset.invalidRows}, and its `get` rejects with a
   * {@link CsvFormatError} naming the row (so the DataLoader's `onError` policy applies).
   * @default 'auto'
   */
  labelType?: 'auto' | 'number' | 'class';
  /**
   * Cell values that mean "no value" in the label column (compared after trimming), as
   * pandas' `na_values`.
   * @default ['', 'n/a', 'N/A', 'NA', '#N/A', 'nan', 'NaN', '-nan', 'null', 'NULL', 'None', '?']
   */
  missingValues?: readonly string[];
  /**
   * Which image URLs written in the manifest may be fetched. By default only URLs under
   * `imageBaseUrl` (`../`, `/abs` and other origins are refused with `URL_NOT_ALLOWED`), and
   * `requestInit`'s headers and cookies only go to the origins of `csvUrl` and `imageBaseUrl`.
   * @default {} (only under imageBaseUrl)
   */
  urlPolicy?: UrlPolicy;
  /**
   * Columns forming the tabular vector, in order. By default every column whose
   * values are all numbers, except the image and label columns and one named `id`.
   */
  tabularColumns?: readonly string[];
  /**
   * Standardise each tabular column to mean 0 and standard deviation 1 using the
   * manifest's own statistics (see {@link CsvImageDataset.tabularStats}).
   * @default false
   */
  standardizeTabular?: boolean;
  /**
   * Image channels: 1 (grayscale luminance) or 3 (RGB).
   * @default 1
   */
  channels?: 1 | 3;
  /** Resize every image to this width (default: keep the file's). */
  width?: number;
  /** Resize every image to this height (default: keep the file's). */
  height?: number;
  /**
   * Longest line of the manifest, in bytes. The manifest is read as a stream and a longer
   * line stops the read at once with a `SizeLimitError` (code `SIZE_LIMIT`) naming the line.
   * @default 8388608 (8 MiB)
   */
  maxLineBytes?: number;
  /**
   * Largest image, in pixels (width × height), read from the file's header before decoding;
   * a larger one fails its `get` with a `SizeLimitError`. See {@link ImageDecoderOptions.maxPixels}.
   * @default 67108864 (8192 × 8192)
   */
  maxPixels?: number;
  /** `fetch` to use (default: the global one). */
  fetch?: typeof fetch;
  /**
   * Extra `RequestInit` for the manifest and the images (credentials, headers, cache mode).
   * Headers and cookies are only sent to the origins of `csvUrl` and `imageBaseUrl`; images
   * on an origin allowed by `urlPolicy.allowOrigins` are fetched without them.
   */
  requestInit?: RequestInit;
}

/** A manifest row left out of training: its label is missing or unreadable, or its URL is refused. */
export interface CsvInvalidRow {
  /** The sample index (0 = the first row after the header). */
  readonly index: number;
  /** The column holding the bad value. */
  readonly column: string;
  /** The bad value as written. */
  readonly value: string;
  /** The error `get(index)` rejects with. */
  readonly error: CsvFormatError | UrlNotAllowedError;
}
