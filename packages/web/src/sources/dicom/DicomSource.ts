import {
  ClosedError,
  type Dataset,
  type GetOptions,
  LoadPhaseCounter,
  type LoadPhaseStats,
  type ReportsLoadPhases,
} from '@medfusion/core';
import { rejectUnknownOptions } from '@medfusion/core/internal';
import type { DataSet } from 'dicom-parser';
import { httpOptionsOf } from '../../remote/RangeReader.js';
import { locationHref, resolveUrl } from '../../remote/resolveUrl.js';
import { UrlScope } from '../../remote/urlPolicy.js';
import { BlobFiles } from './BlobFiles.js';
import { DicomDecoder } from './DicomDecoder.js';
import { DicomError } from './DicomError.js';
import { type DicomManifest, loadManifest } from './dicomManifest.js';
import {
  DECODE_AND_HTTP_OPTIONS,
  type DicomSample,
  type DicomSourceOptions,
} from './dicomOptions.js';
import { dicomParser } from './dicomParser.js';
import { checkDicomSourceOptions, manifestColumns } from './dicomSourceChecks.js';
import type { FileBytes } from './FileBytes.js';
import { FrameIndex } from './FrameIndex.js';
import { fnv1a } from './fnv1a.js';
import { type DicomImageInfo, readImageInfo } from './imageInfo.js';
import { loadSample } from './loadSample.js';
import { listLocalFiles } from './localFiles.js';
import { dataSetReader, inflate } from './parsePart10.js';
import { checkFramesInFile } from './pixelLimits.js';
import { TransferSyntax } from './transferSyntax.js';
import { UrlFiles } from './UrlFiles.js';

/** Where the files come from: exactly one of these. */
const INPUTS = ['urls', 'manifestUrl', 'files', 'directory'] as const;
/** Options that only mean something for files fetched over HTTP. */
const HTTP_ONLY = [
  'urlColumn',
  'labelColumn',
  'tabularColumns',
  'framesColumn',
  'urlPolicy',
  'fetch',
  'headers',
  'limiter',
  'retry',
] as const;

const KNOWN_OPTIONS = [
  ...INPUTS,
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
 * DICOM Part 10 files as a random-access {@link Dataset}: over HTTP from a
 * list of URLs or a CSV/JSON manifest carrying labels and extra columns, or
 * from the user's machine (`files`: a `FileList` or `File`s; `directory`: a
 * `FileSystemDirectoryHandle`). Each `get` fetches one file (retries,
 * per-origin limit and headers as `RangeReader`) or reads it (`Blob.arrayBuffer`,
 * no retry) and decodes it with {@link DicomDecoder} into
 * `{ image: { data: Float32Array, shape: [H, W, C] }, tabular, label }`.
 * Decoding is CPU work: run the source inside a `createWorkerExecutor` pool
 * (see docs/dicom.md; `File`s and directory handles can be posted to the
 * workers) to keep it off the page's thread.
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
  /**
   * Identifies the data set for the disk tier, derived from the decode options and
   * the URLs, or for local files from their relative paths, sizes and modification
   * dates (not their contents: a file rewritten with the same size within the same
   * millisecond keeps the fingerprint).
   */
  readonly fingerprint: string;
  /**
   * Local files (`files`, `directory`) left out at open as not DICOM images: no
   * `DICM` at byte 128 (a text file, a viewer program on a CD), or a DICOMDIR. 0 for URLs.
   */
  readonly skippedFiles: number;
  private readonly manifest: DicomManifest;
  private readonly source: FileBytes;
  private readonly layout: FrameIndex;
  private readonly decoder: DicomDecoder;
  private readonly phases = new LoadPhaseCounter();
  private readonly transform: DicomSourceOptions<T>['transform'];
  private readonly recent = new Map<number, Promise<Uint8Array>>();
  private readonly closer = new AbortController();
  private closed = false;
  private fetches = 0;

  private constructor(
    manifest: DicomManifest,
    source: FileBytes,
    skipped: number,
    frames: number[],
    decoder: DicomDecoder,
    options: DicomSourceOptions<T>,
  ) {
    this.manifest = manifest;
    this.source = source;
    this.skippedFiles = skipped;
    this.decoder = decoder;
    this.transform = options.transform;
    const counted =
      manifest.frames && decoder.multiFrame === 'frames' ? 'manifest column' : 'header';
    this.layout = new FrameIndex(
      frames,
      0,
      `the frame counts (${counted}) of ${frames.length} file(s) from ${source.nameOf(0)}`,
    );
    const total = this.layout.length;
    this.length = total;
    this.tabularNames = [...manifest.columns, ...decoder.tagNames];
    this.fingerprint = `dicom:${fnv1a(
      JSON.stringify([
        source.identity,
        decoder.multiFrame,
        options.window ?? null,
        decoder.tagNames,
        manifest.columns,
        ...decoder.sampleShapeKey(),
      ]),
    )}#${total}`;
  }

  /**
   * Resolve the file list: fetch the manifest, or list and check the local files
   * (sorted by relative path, non-DICOM files skipped); with `multiFrame: 'frames'`,
   * learn frame counts.
   */
  static async open<T = DicomSample>(options: DicomSourceOptions<T>): Promise<DicomSource<T>> {
    if (options === null || typeof options !== 'object') {
      throw new TypeError(
        `options must be an object with urls, manifestUrl, files or directory, got ${String(options)}`,
      );
    }
    rejectUnknownOptions(options, KNOWN_OPTIONS, 'DicomSource.open');
    checkDicomSourceOptions(options as DicomSourceOptions<unknown>);
    const given = INPUTS.filter((k) => options[k] !== undefined);
    if (given.length !== 1) {
      throw new TypeError(
        `give exactly one of urls, manifestUrl, files or directory, got ${given.length === 0 ? 'none' : given.join(' and ')}`,
      );
    }
    const local = given[0] === 'files' || given[0] === 'directory';
    const httpOnly = local ? HTTP_ONLY.find((k) => options[k] !== undefined) : undefined;
    if (httpOnly !== undefined) {
      throw new TypeError(`${httpOnly} applies to urls and manifestUrl, not to local ${given[0]}`);
    }
    const decoder = new DicomDecoder(options);
    let manifest: DicomManifest;
    let source: FileBytes;
    let skipped = 0;
    if (local) {
      const listed = await listLocalFiles(options, options.signal);
      source = new BlobFiles(listed.files);
      skipped = listed.skipped;
      manifest = noManifest([], source.count);
    } else {
      ({ manifest, source } = await fromHttp(options));
    }
    let frames = manifest.frames ?? new Array<number>(source.count).fill(1);
    if (decoder.multiFrame === 'frames' && manifest.frames === undefined) {
      frames = await Promise.all(
        Array.from({ length: source.count }, (_, i) => frameCount(source, i, options.signal)),
      );
    }
    return new DicomSource<T>(manifest, source, skipped, frames, decoder, options);
  }

  /** Files fetched (or local files read) by `get` so far (retries not counted). */
  get fileFetches(): number {
    return this.fetches;
  }

  /** The URL of the file sample `index` comes from (`urls`, `manifestUrl`; local files: {@link pathOf}). */
  urlOf(index: number): string {
    this.layout.check(index);
    if (!(this.source instanceof UrlFiles)) {
      throw new TypeError('this DicomSource reads local files: use pathOf(index)');
    }
    return this.source.nameOf(this.layout.itemOf(index));
  }

  /** The relative path of the local file sample `index` comes from (`files`, `directory`; URLs: {@link urlOf}). */
  pathOf(index: number): string {
    this.layout.check(index);
    if (!(this.source instanceof BlobFiles)) {
      throw new TypeError('this DicomSource reads URLs: use urlOf(index)');
    }
    return this.source.nameOf(this.layout.itemOf(index));
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
    const startAt = performance.now();
    const bytes = await this.bytes(f, signal);
    const decodeAt = performance.now();
    const { image, tags } = await this.decoder.decode(bytes, {
      where: this.source.nameOf(f),
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

  private bytes(f: number, signal: AbortSignal | undefined): Promise<Uint8Array> {
    if (this.decoder.multiFrame !== 'frames') {
      this.fetches++;
      return this.source.read(
        f,
        signal ? AbortSignal.any([signal, this.closer.signal]) : this.closer.signal,
      );
    }
    // Frames of one file come in a row: keep the last few files, shared by concurrent gets.
    let p = this.recent.get(f);
    if (!p) {
      this.fetches++;
      p = this.source.read(f, this.closer.signal);
      this.recent.set(f, p);
      p.catch(() => this.recent.delete(f));
      while (this.recent.size > RECENT_FILES)
        this.recent.delete(this.recent.keys().next().value as number);
    }
    return p;
  }
}

/** A manifest with files only: no labels (NaN), no columns. */
function noManifest(urls: string[], count: number): DicomManifest {
  return {
    urls,
    labels: new Float64Array(count).fill(Number.NaN),
    columns: [],
    values: new Float32Array(0),
    frames: undefined,
  };
}

/** The files of `urls` or of the manifest at `manifestUrl` (fetched here). */
async function fromHttp(
  options: DicomSourceOptions<unknown>,
): Promise<{ manifest: DicomManifest; source: FileBytes }> {
  const here = locationHref();
  const http = httpOptionsOf(options);
  if (options.urls !== undefined) {
    if (!Array.isArray(options.urls) || options.urls.length === 0) {
      throw new TypeError(`urls must be a non-empty array of URLs, got ${String(options.urls)}`);
    }
    const urls = options.urls.map((u, i) => resolveUrl(`urls[${i}]`, u, here));
    // URLs the user wrote are trusted: every origin among them may receive the headers.
    const scope = new UrlScope(
      urls[0] as string,
      { allowOrigins: ['*'] },
      urls.map((u) => new URL(u).origin),
    );
    return { manifest: noManifest(urls, urls.length), source: new UrlFiles(urls, scope, http) };
  }
  const url = resolveUrl('manifestUrl', options.manifestUrl as string | URL, here);
  const scope = new UrlScope(url, options.urlPolicy);
  const manifest = await loadManifest(url, http, scope, manifestColumns(options), options.signal);
  return { manifest, source: new UrlFiles(manifest.urls, scope, http) };
}

/** NumberOfFrames of file `i`, from its first bytes (the whole file if the header is longer). */
async function frameCount(
  files: FileBytes,
  i: number,
  signal: AbortSignal | undefined,
): Promise<number> {
  const { bytes, size } = await files.head(i, HEAD_BYTES, signal);
  const read = (b: Uint8Array) =>
    dicomParser.parseDicom(b, { untilTag: 'x7fe00010', inflater: inflate });
  let ds: DataSet;
  try {
    ds = read(bytes);
  } catch (error) {
    if (bytes.length >= size) {
      throw new DicomError(
        'DICOM_FORMAT',
        `${files.nameOf(i)} is not a readable DICOM Part 10 file`,
        { cause: error },
      );
    }
    ds = read(await files.read(i, signal));
  }
  const tags = dataSetReader(ds);
  const frames = Math.max(1, tags.number('00280008', 'IS') ?? 1);
  // The claimed count against the file's size, before the sample index is built on it.
  let info: DicomImageInfo | undefined;
  try {
    info = readImageInfo(tags, files.nameOf(i));
  } catch {
    info = undefined; // a get of the file names the missing tag
  }
  const syntax = ds.string('x00020010')?.trim() ?? TransferSyntax.ImplicitVRLittleEndian;
  checkFramesInFile(info, frames, syntax, size, files.nameOf(i));
  return frames;
}
