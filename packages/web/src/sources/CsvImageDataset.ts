import {
  type Dataset,
  type GetOptions,
  LoadError,
  LoadPhaseCounter,
  type LoadPhaseStats,
  MedFusionError,
  type ReportsLoadPhases,
} from '@medfusion/core';
import { index as checkIndex, object, showValue, throwIfAborted } from '@medfusion/core/internal';
import { fetchSigned } from '../remote/fetchSigned.js';
import { type RequestTimeouts, readBody } from '../remote/fetchWithTimeout.js';
import { redactUrl } from '../remote/redactUrl.js';
import { locationHref, resolveUrl } from '../remote/resolveUrl.js';
import type { Signing } from '../remote/UrlSigner.js';
import { type UrlNotAllowedError, UrlScope } from '../remote/urlPolicy.js';
import { type CsvImageSettings, checkCsvImageOptions } from './csvImageChecks.js';
import type { CsvImageDatasetOptions, CsvImageSample, CsvInvalidRow } from './csvImageOptions.js';
import { CsvFormatError, parseManifest, readManifestText } from './csvManifest.js';
import type { ImageDecoder } from './decodeImage.js';

function urlOption(name: string, value: unknown): string {
  if (typeof value === 'string' && value.length > 0) return value;
  if (value instanceof URL) return value.href;
  throw new TypeError(`${name} must be a non-empty string or URL, got ${showValue(value)}`);
}

/** `init` for a request to an origin the user did not name: no headers, no cookies. */
function withoutCredentials(init: RequestInit | undefined): RequestInit {
  const { headers: _headers, credentials: _credentials, ...rest } = init ?? {};
  return { ...rest, credentials: 'omit' };
}

/**
 * A multimodal source built from a CSV manifest plus an image folder over
 * HTTP: the reference's `MedicalDataset(csv_path, image_dir, transform)`.
 * The manifest is fetched once by {@link CsvImageDataset.open}; each `get`
 * fetches and decodes one image (createImageBitmap + OffscreenCanvas, so it
 * works in a page and in a Web Worker) and returns normalised Float32Arrays.
 *
 * @example
 * const ds = await CsvImageDataset.open({
 *   csvUrl: '/data/manifest.csv',
 *   imageBaseUrl: '/data/images/',
 *   standardizeTabular: true,
 * });
 * const { image, tabular, label } = await ds.get(0);
 */
export class CsvImageDataset<T = CsvImageSample> implements Dataset<T>, ReportsLoadPhases {
  /** Number of rows in the manifest. */
  readonly length: number;
  /** The manifest's header, in file order. */
  readonly columns: readonly string[];
  /** Columns making up `tabular`, in order. */
  readonly tabularColumns: readonly string[];
  /**
   * Class names in class-index order, so `classes.length` is the number of
   * classes: text labels in order of first appearance; for labels that are
   * non-negative integers, `'0'` … `String(max)`; empty for other numbers (regression).
   */
  readonly classes: readonly string[];
  /** Per tabular column mean and standard deviation over the manifest. */
  readonly tabularStats: { readonly mean: Float32Array; readonly std: Float32Array };
  /**
   * Rows that cannot be served (missing or unreadable label, refused image URL), in row
   * order. Their `get` rejects with the listed error; every other row keeps its values.
   */
  readonly invalidRows: readonly CsvInvalidRow[];

  private readonly imageUrls: string[];
  private readonly invalid: Map<number, CsvInvalidRow>;
  private readonly scope: UrlScope;
  private readonly labels: Float64Array;
  private readonly features: Float32Array;
  private readonly decoder: ImageDecoder;
  private readonly phases = new LoadPhaseCounter();
  private readonly fetchFn: typeof fetch;
  private readonly timeouts: RequestTimeouts;
  private readonly signing: Signing | undefined;
  private readonly init: RequestInit | undefined;
  private readonly anonymousInit: RequestInit;
  private readonly transform: ((s: CsvImageSample, i: number) => T | Promise<T>) | undefined;

  private constructor(
    options: CsvImageSettings<T>,
    csv: { url: string; header: string[]; rows: string[][] },
    scope: UrlScope,
  ) {
    const { imageColumn, labelColumn } = options;
    const { header, rows } = csv;
    // Column name → position, built once: every later lookup is O(1), so open() stays
    // linear in the manifest's cells however many columns it has.
    const position = new Map<string, number>(header.map((name, k) => [name, k]));
    const columnOf = (opt: string, col: string): number => {
      const k = position.get(col);
      if (k === undefined) {
        const some =
          header.length > 20 ? `${header.slice(0, 20).join(', ')}, …` : header.join(', ');
        throw new CsvFormatError(
          `${opt} ${JSON.stringify(col)} is not a column of the manifest (columns: ${some})`,
        );
      }
      return k;
    };
    const imageAt = columnOf('imageColumn', imageColumn);
    const labelAt = columnOf('labelColumn', labelColumn);
    if (rows.length === 0) throw new CsvFormatError('the manifest has no rows');
    const isNumeric = (k: number) =>
      rows.every((r) => r[k] !== undefined && r[k] !== '' && Number.isFinite(Number(r[k])));
    const tabular =
      options.tabularColumns ??
      header.filter((c, k) => c !== imageColumn && c !== labelColumn && c !== 'id' && isNumeric(k));
    const tabularAt = Int32Array.from(tabular, (col) => {
      if (!position.has(col)) {
        throw new CsvFormatError(
          `tabularColumns names ${JSON.stringify(col)}, which is not a column of the manifest`,
        );
      }
      return position.get(col) as number;
    });
    this.scope = scope;
    const width = tabular.length;
    const n = rows.length;
    this.length = n;
    this.columns = header;
    this.tabularColumns = [...tabular];
    this.imageUrls = new Array<string>(n);
    this.labels = new Float64Array(n);
    this.features = new Float32Array(n * width);
    this.invalid = new Map();
    const missing = options.missingValues;
    const rawLabels = new Array<string>(n);
    let numericCount = 0;
    for (let i = 0; i < n; i++) {
      const raw = ((rows[i] as string[])[labelAt] ?? '').trim();
      rawLabels[i] = raw;
      if (!missing.has(raw) && Number.isFinite(Number(raw))) numericCount++;
    }
    const labelType = options.labelType;
    const numericLabels = labelType === 'number' || (labelType === 'auto' && numericCount * 2 > n);
    const reject = (index: number, column: string, value: string, why: string) => {
      if (this.invalid.has(index)) return;
      const error = new CsvFormatError(
        `row ${index}, column ${JSON.stringify(column)}: ${JSON.stringify(value)} ${why}; the row is left out, the others keep their values`,
        index,
      );
      this.invalid.set(index, { index, column, value, error });
    };
    const classes: string[] = [];
    const classIndex = new Map<string, number>();
    for (let i = 0; i < n; i++) {
      const row = rows[i] as string[];
      const file = row[imageAt];
      if (!file) throw new CsvFormatError(`row ${i} has an empty ${imageColumn} column`);
      try {
        this.imageUrls[i] = this.scope.resolve(
          file,
          `manifest row ${i}, column ${JSON.stringify(imageColumn)}`,
          i,
        );
      } catch (error) {
        if (!(error instanceof MedFusionError)) throw error;
        this.imageUrls[i] = '';
        this.invalid.set(i, {
          index: i,
          column: imageColumn,
          value: file,
          error: error as UrlNotAllowedError,
        });
      }
      const rawLabel = rawLabels[i] as string;
      if (missing.has(rawLabel)) {
        this.labels[i] = Number.NaN;
        reject(i, labelColumn, rawLabel, 'is a missing label');
      } else if (numericLabels) {
        const v = Number(rawLabel);
        this.labels[i] = v;
        if (!Number.isFinite(v))
          reject(i, labelColumn, rawLabel, 'is not a number (labelType is number)');
      } else {
        let k = classIndex.get(rawLabel);
        if (k === undefined) {
          k = classes.length;
          classes.push(rawLabel);
          classIndex.set(rawLabel, k);
        }
        this.labels[i] = k;
      }
      for (let c = 0; c < width; c++) {
        const cell = row[tabularAt[c] as number];
        const v = Number(cell);
        if (cell === '' || !Number.isFinite(v)) {
          throw new CsvFormatError(
            `row ${i}, column ${JSON.stringify(tabular[c])}: ${JSON.stringify(cell)} is not a number`,
          );
        }
        this.features[i * width + c] = v;
      }
    }
    this.invalidRows = [...this.invalid.values()].sort((a, b) => a.index - b.index);
    if (numericLabels) {
      let max = -1;
      let integral = true;
      for (let i = 0; i < n; i++) {
        const v = this.labels[i] as number;
        if (Number.isNaN(v)) continue;
        if (!Number.isInteger(v) || v < 0) integral = false;
        else if (v > max) max = v;
      }
      if (integral && max < 1_000_000) {
        for (let k = 0; k <= max; k++) classes.push(String(k));
      }
    }
    this.classes = classes;
    const mean = new Float32Array(width);
    const std = new Float32Array(width);
    for (let c = 0; c < width; c++) {
      let sum = 0;
      for (let i = 0; i < n; i++) sum += this.features[i * width + c] as number;
      const m = sum / n;
      let sq = 0;
      for (let i = 0; i < n; i++) sq += ((this.features[i * width + c] as number) - m) ** 2;
      mean[c] = m;
      std[c] = Math.sqrt(sq / n) || 1;
    }
    this.tabularStats = { mean, std };
    if (options.standardizeTabular) {
      for (let i = 0; i < n; i++) {
        for (let c = 0; c < width; c++) {
          const k = i * width + c;
          this.features[k] =
            ((this.features[k] as number) - (mean[c] as number)) / (std[c] as number);
        }
      }
    }
    this.decoder = options.decoder;
    this.fetchFn = options.fetchFn;
    this.timeouts = options.timeouts;
    this.signing = options.signing;
    this.init = options.requestInit;
    this.anonymousInit = withoutCredentials(options.requestInit);
    this.transform = options.transform;
  }

  /**
   * Fetch and parse the manifest (once) and return the dataset.
   * Rejects with a `CsvFormatError` for a malformed manifest, a `RequestTimeoutError`
   * (code `REQUEST_TIMEOUT`) when its server stalls, and a `MedFusionError` with code
   * `LOAD_FAILED` when the manifest cannot be fetched.
   */
  static async open<T = CsvImageSample>(
    options: CsvImageDatasetOptions<T>,
    opts: GetOptions = {},
  ): Promise<CsvImageDataset<T>> {
    object('options', options);
    const csvUrl = resolveUrl('csvUrl', urlOption('csvUrl', options.csvUrl), locationHref());
    urlOption('imageBaseUrl', options.imageBaseUrl);
    const settings = checkCsvImageOptions(options);
    // Built before any request, so a bad urlPolicy fails first; credentials may go to the
    // origins the user named (the manifest's and the images').
    const scope = new UrlScope(
      resolveUrl('imageBaseUrl', urlOption('imageBaseUrl', options.imageBaseUrl), locationHref()),
      options.urlPolicy,
      [new URL(csvUrl).origin],
    );
    const { maxLineBytes, fetchFn, timeouts, signing } = settings;
    let text: string;
    try {
      const init = settings.requestInit ?? {};
      const res = await fetchSigned(fetchFn, csvUrl, init, timeouts, signing, opts.signal);
      if (!res.ok) {
        await res.body?.cancel().catch(() => {});
        throw new Error(`HTTP ${res.status} for ${redactUrl(csvUrl)}`);
      }
      text = await readManifestText(res, csvUrl, maxLineBytes);
    } catch (err) {
      throwIfAborted(opts.signal);
      if (err instanceof MedFusionError) throw err;
      throw new MedFusionError(
        'LOAD_FAILED',
        `fetching the manifest ${redactUrl(csvUrl)} failed: ${String(err)}`,
        {
          cause: err,
        },
      );
    }
    return new CsvImageDataset<T>(settings, parseManifest(text, csvUrl), scope);
  }

  /** The URL of sample `index`'s image; throws the row's error for a refused URL. */
  imageUrl(index: number): string {
    this.check(index);
    const bad = this.invalid.get(index);
    if (bad && bad.error.code === 'URL_NOT_ALLOWED') throw bad.error;
    return this.imageUrls[index] as string;
  }

  /**
   * Where this dataset's loads spent their time so far: waiting for images' bytes
   * (request and body) and decoding them; undefined before the first load. Read by
   * `diagnose` (through `getCacheStats().loadPhases`) to tell decode CPU from source latency.
   */
  loadPhases(): LoadPhaseStats | undefined {
    return this.phases.snapshot();
  }

  /** The label of sample `index`, without loading the image; throws the row's error for an invalid row. */
  label(index: number): number {
    this.check(index);
    const bad = this.invalid.get(index);
    if (bad) throw bad.error;
    return this.labels[index] as number;
  }

  /**
   * Fetch and decode sample `index`. Throws a RangeError at once for a bad index;
   * rejects with a `LoadError` naming the index when the image cannot be loaded (its
   * `cause` is a `RequestTimeoutError` when the server stalled). Aborting `signal`
   * aborts the request.
   */
  get(index: number, opts: GetOptions = {}): Promise<T> {
    this.check(index);
    return this.load(index, opts);
  }

  private async load(index: number, opts: GetOptions): Promise<T> {
    throwIfAborted(opts.signal);
    const bad = this.invalid.get(index);
    if (bad) throw bad.error;
    const url = this.imageUrls[index] as string;
    let sample: CsvImageSample;
    const startAt = performance.now();
    try {
      const init = this.scope.mayCarryCredentials(url) ? this.init : this.anonymousInit;
      const res = await fetchSigned(
        this.fetchFn,
        url,
        init ?? {},
        this.timeouts,
        this.signing,
        opts.signal,
      );
      if (!res.ok) {
        await res.body?.cancel().catch(() => {});
        throw new Error(`HTTP ${res.status} for ${redactUrl(url)}`);
      }
      const bytes = await readBody(res.body);
      const decodeAt = performance.now();
      const { data } = await this.decoder.decode(bytes, url);
      this.phases.record(decodeAt - startAt, performance.now() - decodeAt);
      const w = this.tabularColumns.length;
      sample = {
        image: data,
        tabular: this.features.slice(index * w, index * w + w),
        label: this.labels[index] as number,
      };
    } catch (err) {
      throwIfAborted(opts.signal);
      throw new LoadError(index, err);
    }
    return this.transform ? this.transform(sample, index) : (sample as T);
  }

  private check(index: number): void {
    checkIndex(index, this.length);
  }
}
