import {
  ClosedError,
  type Dataset,
  type GetOptions,
  LoadPhaseCounter,
  type LoadPhaseStats,
  type ReportsLoadPhases,
} from '@medfusion/core';
import { rejectUnknownOptions } from '@medfusion/core/internal';
import { type DataSet, parseDicom } from 'dicom-parser';
import { type HttpOptions, httpOptionsOf } from '../../remote/RangeReader.js';
import { locationHref, resolveUrl } from '../../remote/resolveUrl.js';
import { UrlScope } from '../../remote/urlPolicy.js';
import { DicomDecoder } from './DicomDecoder.js';
import { DicomError } from './DicomError.js';
import { type DicomManifest, loadManifest } from './dicomManifest.js';
import {
  DECODE_AND_HTTP_OPTIONS,
  type DicomSample,
  type DicomSourceOptions,
} from './dicomOptions.js';
import { FrameIndex } from './FrameIndex.js';
import { fetchHead, fetchObject } from './fetchObject.js';
import { fnv1a } from './fnv1a.js';
import { type DicomImageInfo, readImageInfo } from './imageInfo.js';
import { loadSample } from './loadSample.js';
import { dataSetReader, inflate } from './parsePart10.js';
import { checkFramesInFile } from './pixelLimits.js';
import { TransferSyntax } from './transferSyntax.js';

const KNOWN_OPTIONS = [
  'urls',
  'manifestUrl',
  'urlColumn',
  'labelColumn',
  'tabularColumns',
  'framesColumn',
  'urlPolicy',
  'transform',
  'signal',
  ...DECODE_AND_HTTP_OPTIONS,
] as const;

/** Bytes read from a file's start to find its frame count. */
const HEAD_BYTES = 65536;
/** Whole files kept for the frames of one file (multiFrame 'frames'). */
const RECENT_FILES = 4;

/**
 * DICOM Part 10 files over HTTP as a random-access {@link Dataset}: from a
 * list of URLs or a CSV/JSON manifest carrying labels and extra columns. Each
 * `get` fetches one file (retries, per-origin limit and headers as
 * `RangeReader`) and decodes it with {@link DicomDecoder} into
 * `{ image: { data: Float32Array, shape: [H, W, C] }, tabular, label }`.
 * Decoding is CPU work: run the source inside a `createWorkerExecutor` pool
 * (see docs/dicom.md) to keep it off the page's thread.
 *
 * @example
 * const source = await DicomSource.open({
 *   manifestUrl: '/data/ct/manifest.csv', // url,label,age
 *   window: { center: 40, width: 400 },
 *   tags: ['PatientSex', { name: 'Modality', categories: ['CT', 'MR'] }],
 * });
 * const { image, tabular, label } = await source.get(0);
 */
export class DicomSource<T = DicomSample> implements Dataset<T>, ReportsLoadPhases {
  /** Number of samples (files, or frames with `multiFrame: 'frames'`). */
  readonly length: number;
  /** Names of the `tabular` values: the manifest's columns, then the tags. */
  readonly tabularNames: readonly string[];
  /** Identifies the data set for the disk tier (derived from the URLs and decode options). */
  readonly fingerprint: string;
  private readonly manifest: DicomManifest;
  private readonly layout: FrameIndex;
  private readonly decoder: DicomDecoder;
  private readonly phases = new LoadPhaseCounter();
  private readonly scope: UrlScope;
  private readonly http: HttpOptions;
  private readonly anonymous: HttpOptions;
  private readonly transform: DicomSourceOptions<T>['transform'];
  private readonly recent = new Map<number, Promise<Uint8Array>>();
  private readonly closer = new AbortController();
  private closed = false;
  private fetches = 0;

  private constructor(
    manifest: DicomManifest,
    frames: number[],
    decoder: DicomDecoder,
    scope: UrlScope,
    options: DicomSourceOptions<T>,
  ) {
    this.manifest = manifest;
    this.decoder = decoder;
    this.scope = scope;
    this.transform = options.transform;
    this.http = httpOptionsOf(options);
    this.anonymous = { ...this.http, headers: {} };
    const counted =
      manifest.frames && decoder.multiFrame === 'frames' ? 'manifest column' : 'header';
    this.layout = new FrameIndex(
      frames,
      0,
      `the frame counts (${counted}) of ${frames.length} file(s) from ${manifest.urls[0]}`,
    );
    const total = this.layout.length;
    this.length = total;
    this.tabularNames = [...manifest.columns, ...decoder.tagNames];
    this.fingerprint = `dicom:${fnv1a(
      JSON.stringify([
        manifest.urls,
        decoder.multiFrame,
        options.window ?? null,
        decoder.tagNames,
        manifest.columns,
      ]),
    )}#${total}`;
  }

  /** Resolve the file list (fetch the manifest; with `multiFrame: 'frames'`, learn frame counts). */
  static async open<T = DicomSample>(options: DicomSourceOptions<T>): Promise<DicomSource<T>> {
    if (options === null || typeof options !== 'object') {
      throw new TypeError(
        `options must be an object with urls or manifestUrl, got ${String(options)}`,
      );
    }
    rejectUnknownOptions(options, KNOWN_OPTIONS, 'DicomSource.open');
    if ((options.urls !== undefined) === (options.manifestUrl !== undefined)) {
      throw new TypeError('give exactly one of urls or manifestUrl');
    }
    if (options.transform !== undefined && typeof options.transform !== 'function') {
      throw new TypeError(`transform must be a function, got ${String(options.transform)}`);
    }
    const decoder = new DicomDecoder(options);
    const here = locationHref();
    let manifest: DicomManifest;
    let scope: UrlScope;
    if (options.urls !== undefined) {
      if (!Array.isArray(options.urls) || options.urls.length === 0) {
        throw new TypeError(`urls must be a non-empty array of URLs, got ${String(options.urls)}`);
      }
      const urls = options.urls.map((u, i) => resolveUrl(`urls[${i}]`, u, here));
      // URLs the user wrote are trusted: every origin among them may receive the headers.
      scope = new UrlScope(
        urls[0] as string,
        { allowOrigins: ['*'] },
        urls.map((u) => new URL(u).origin),
      );
      manifest = {
        urls,
        labels: new Float64Array(urls.length).fill(Number.NaN),
        columns: [],
        values: new Float32Array(0),
        frames: undefined,
      };
    } else {
      const url = resolveUrl('manifestUrl', options.manifestUrl as string | URL, here);
      scope = new UrlScope(url, options.urlPolicy);
      manifest = await loadManifest(
        url,
        options.fetch ?? globalThis.fetch.bind(globalThis),
        options.headers,
        scope,
        {
          urlColumn: options.urlColumn ?? 'url',
          labelColumn: options.labelColumn ?? 'label',
          framesColumn: options.framesColumn ?? 'frames',
          tabularColumns: options.tabularColumns,
        },
        options.signal,
      );
    }
    let frames = manifest.urls.map(() => 1);
    if (decoder.multiFrame === 'frames') {
      frames =
        manifest.frames ??
        (await Promise.all(
          manifest.urls.map((u) =>
            frameCount(
              u,
              scope.mayCarryCredentials(u) ? options : { ...options, headers: {} },
              options.signal,
            ),
          ),
        ));
    }
    return new DicomSource<T>(manifest, frames, decoder, scope, options);
  }

  /** File requests sent by `get` so far (retries not counted). */
  get fileFetches(): number {
    return this.fetches;
  }

  /** The URL of the file sample `index` comes from. */
  urlOf(index: number): string {
    this.layout.check(index);
    return this.manifest.urls[this.layout.itemOf(index)] as string;
  }

  /**
   * Fetch and decode sample `index`; rejects with a `LoadError` (cause: the `DicomError`,
   * `RemoteReadError`, or the `SizeLimitError` of a header claiming more than the file holds).
   */
  async get(index: number, opts: GetOptions = {}): Promise<T> {
    this.layout.check(index);
    if (this.closed) throw new ClosedError('DicomSource');
    return loadSample(index, opts.signal, () => this.load(index, opts.signal), this.transform);
  }

  /**
   * Where this source's loads spent their time so far: fetching files (or frames) and
   * decoding them; undefined before the first load. `diagnose` reads it (through
   * `getCacheStats().loadPhases`) to tell decode CPU from source latency.
   */
  loadPhases(): LoadPhaseStats | undefined {
    return this.phases.snapshot();
  }

  /** Abort fetches in flight; later `get`s throw `CLOSED`. */
  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.closer.abort(new ClosedError('DicomSource'));
    this.recent.clear();
  }

  private async load(index: number, signal: AbortSignal | undefined): Promise<DicomSample> {
    const f = this.layout.itemOf(index);
    const url = this.manifest.urls[f] as string;
    const startAt = performance.now();
    const bytes = await this.bytes(f, url, signal);
    const decodeAt = performance.now();
    const { image, tags } = await this.decoder.decode(bytes, {
      where: url,
      index,
      frame: this.layout.frameOf(index),
    });
    this.phases.record(decodeAt - startAt, performance.now() - decodeAt);
    const width = this.manifest.columns.length;
    const tabular = new Float32Array(width + tags.length);
    tabular.set(this.manifest.values.subarray(f * width, f * width + width));
    tabular.set(tags, width);
    return { image, tabular, label: this.manifest.labels[f] as number };
  }

  private bytes(f: number, url: string, signal: AbortSignal | undefined): Promise<Uint8Array> {
    const http = this.scope.mayCarryCredentials(url) ? this.http : this.anonymous;
    if (this.decoder.multiFrame !== 'frames') {
      this.fetches++;
      return fetchObject(
        url,
        http,
        signal ? AbortSignal.any([signal, this.closer.signal]) : this.closer.signal,
      );
    }
    // Frames of one file come in a row: keep the last few files, shared by concurrent gets.
    let p = this.recent.get(f);
    if (!p) {
      this.fetches++;
      p = fetchObject(url, http, this.closer.signal);
      this.recent.set(f, p);
      p.catch(() => this.recent.delete(f));
      while (this.recent.size > RECENT_FILES)
        this.recent.delete(this.recent.keys().next().value as number);
    }
    return p;
  }
}

/** NumberOfFrames of the file at `url`, from its first bytes (the whole file if the header is longer). */
async function frameCount(
  url: string,
  http: HttpOptions,
  signal: AbortSignal | undefined,
): Promise<number> {
  const { bytes, size } = await fetchHead(url, HEAD_BYTES, http, signal);
  const read = (b: Uint8Array) => parseDicom(b, { untilTag: 'x7fe00010', inflater: inflate });
  let ds: DataSet;
  try {
    ds = read(bytes);
  } catch (error) {
    if (bytes.length >= size) {
      throw new DicomError('DICOM_FORMAT', `${url} is not a readable DICOM Part 10 file`, {
        cause: error,
      });
    }
    ds = read(await fetchObject(url, http, signal));
  }
  const tags = dataSetReader(ds);
  const frames = Math.max(1, tags.number('00280008', 'IS') ?? 1);
  // The claimed count against the file's size, before the sample index is built on it.
  let info: DicomImageInfo | undefined;
  try {
    info = readImageInfo(tags, url);
  } catch {
    info = undefined; // a get of the file names the missing tag
  }
  const syntax = ds.string('x00020010')?.trim() ?? TransferSyntax.ImplicitVRLittleEndian;
  checkFramesInFile(info, frames, syntax, size, url);
  return frames;
}
