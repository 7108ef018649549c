import {
  ClosedError,
  type Dataset,
  type GetOptions,
  LoadPhaseCounter,
  type LoadPhaseStats,
  type ReportsLoadPhases,
} from '@medfusion/core';
import {
  abortSignal,
  checkPersistentStore,
  checkUntrustedSize,
  fn,
  nonEmptyString,
  object,
  rejectUnknownOptions,
  string,
  withDefault,
} from '@medfusion/core/internal';
import { resolveHttpOptions } from '../../remote/httpOptions.js';
import { type HttpOptions, httpOptionsOf } from '../../remote/RangeReader.js';
import { SourceFormatError } from '../../remote/RemoteError.js';
import { locationHref, resolveUrl } from '../../remote/resolveUrl.js';
import { DicomDecoder } from '../dicom/DicomDecoder.js';
import { DECODE_AND_HTTP_OPTIONS, type DicomSample } from '../dicom/dicomOptions.js';
import { FrameIndex } from '../dicom/FrameIndex.js';
import { fnv1a } from '../dicom/fnv1a.js';
import { type DicomImageInfo, readImageInfo } from '../dicom/imageInfo.js';
import { loadSample } from '../dicom/loadSample.js';
import { checkDecodedSize } from '../dicom/pixelLimits.js';
import { jsonReader } from './dicomJson.js';
import type { DicomWebInstance, DicomWebSourceOptions, DicomWebStats } from './dicomWebOptions.js';
import { FrameFetcher } from './FrameFetcher.js';
import { checkUid, type InstanceEntry, InstanceResolver } from './InstanceResolver.js';

const KNOWN_OPTIONS = [
  'root',
  'study',
  'series',
  'query',
  'store',
  'fingerprint',
  'label',
  'transform',
  'signal',
  ...DECODE_AND_HTTP_OPTIONS,
] as const;

/** Most frames one 'volume' sample reads; larger instances read frame by frame (multiFrame: 'frames'). */
const MAX_VOLUME_FRAMES = 65536;

/**
 * A DICOMweb server (Orthanc, dcm4chee, Google Cloud Healthcare, a PACS
 * gateway) as a random-access {@link Dataset}. `open` resolves a study/series
 * query with QIDO-RS and the image description with WADO-RS metadata, once:
 * with `store` the list is kept (without identifying attributes) and the next
 * `open` sends nothing. Each `get` fetches frames with WADO-RS
 * (`multipart/related`, `transfer-syntax=*` so the server sends what it
 * stores) through the per-origin limiter and retries of `RangeReader`, and
 * decodes them with {@link DicomDecoder}. Put it under `createCachedDataset`
 * with a `cacheDir` or `store`: later epochs and visits read the disk tier.
 *
 * @example
 * const source = await DicomWebSource.open({
 *   root: 'https://pacs.hospital.example/dicom-web',
 *   study: '1.2.840.113619.2.55.3.604688119',
 *   headers: { Authorization: `Bearer ${token}` },
 *   window: { center: 40, width: 400 },
 * });
 * const ds = createCachedDataset(source, { cacheType: 'both', cacheDir: 'pacs', fingerprint: source.fingerprint });
 */
export class DicomWebSource<T = DicomSample> implements Dataset<T>, ReportsLoadPhases {
  /** Number of samples (instances, or frames with `multiFrame: 'frames'`). */
  readonly length: number;
  /** Names of the `tabular` values (the `tags` option). */
  readonly tabularNames: readonly string[];
  /** Identifies the data set (the instance list's key prefix and the disk tier's). */
  readonly fingerprint: string;
  private readonly root: string;
  private readonly entries: readonly InstanceEntry[];
  private readonly infos: readonly DicomImageInfo[];
  private readonly layout: FrameIndex;
  private readonly decoder: DicomDecoder;
  private readonly phases = new LoadPhaseCounter();
  private readonly http: HttpOptions;
  private readonly label: DicomWebSourceOptions<T>['label'];
  private readonly transform: DicomWebSourceOptions<T>['transform'];
  private readonly closer = new AbortController();
  private readonly fetcher: FrameFetcher;
  private readonly counters: DicomWebStats;
  private closed = false;

  private constructor(
    root: string,
    entries: InstanceEntry[],
    decoder: DicomDecoder,
    fingerprint: string,
    queryRequests: number,
    options: DicomWebSourceOptions<T>,
  ) {
    this.root = root;
    this.entries = entries;
    this.decoder = decoder;
    this.fingerprint = fingerprint;
    this.tabularNames = decoder.tagNames;
    this.label = options.label;
    this.transform = options.transform;
    this.http = httpOptionsOf(options);
    this.counters = { queryRequests, frameRequests: 0, transcodeFallbacks: 0 };
    this.fetcher = new FrameFetcher(this.http, this.counters);
    this.infos = entries.map((e) => readImageInfo(jsonReader(e.tags), `instance ${e.instance}`));
    // WADO-RS numbers frames from 1; 0 stands for every frame of the instance.
    this.layout =
      decoder.multiFrame === 'frames'
        ? new FrameIndex(
            entries.map((e) => e.frames),
            1,
            framesClaim(entries, root),
          )
        : new FrameIndex(
            entries.map(() => 1),
            0,
          );
    this.length = this.layout.length;
  }

  /** Resolve the query to the instance list (from `store` when it holds it). */
  static async open<T = DicomSample>(
    options: DicomWebSourceOptions<T>,
  ): Promise<DicomWebSource<T>> {
    object('options', options, 'an object with a root');
    rejectUnknownOptions(options, KNOWN_OPTIONS, 'DicomWebSource.open');
    withDefault('store', options.store, undefined, checkPersistentStore);
    withDefault('signal', options.signal, undefined, abortSignal);
    withDefault('label', options.label, undefined, fn);
    withDefault('transform', options.transform, undefined, fn);
    resolveHttpOptions(options);
    const root = resolveUrl('root', options.root, locationHref()).replace(/\/+$/, '');
    if (options.study !== undefined) checkUid('study', options.study);
    if (options.series !== undefined) {
      checkUid('series', options.series);
      if (options.study === undefined) throw new TypeError('series needs study');
    }
    const query = withDefault('query', options.query, {}, (n, v) => {
      const q = object(n, v as Record<string, unknown>, 'an object of QIDO-RS matching keys');
      for (const [key, value] of Object.entries(q)) string(`${n}.${key}`, value);
      return q as Readonly<Record<string, string>>;
    });
    const decoder = new DicomDecoder(options);
    const given = withDefault('fingerprint', options.fingerprint, undefined, nonEmptyString);
    const fingerprint =
      given ??
      `dicomweb:${fnv1a(
        JSON.stringify([
          root,
          options.study,
          options.series,
          query,
          decoder.multiFrame,
          options.window ?? null,
          decoder.tagNames,
          ...decoder.sampleShapeKey(),
        ]),
      )}`;
    const key = `${fingerprint}/dicomweb-instances`;
    const stored = options.store ? await options.store.get(key) : undefined;
    if (stored) {
      try {
        const entries = JSON.parse(new TextDecoder().decode(stored)).entries as InstanceEntry[];
        return new DicomWebSource<T>(root, entries, decoder, fingerprint, 0, options);
      } catch {
        // an unreadable list is resolved again below
      }
    }
    const resolver = new InstanceResolver(root, options);
    const entries = await resolver.resolve(options.study, options.series, query);
    if (entries.length === 0)
      throw new SourceFormatError(`the query matched no instances on ${root}`);
    await options.store?.put(key, new TextEncoder().encode(JSON.stringify({ entries })));
    return new DicomWebSource<T>(root, entries, decoder, fingerprint, resolver.requests, options);
  }

  /** Counters for monitoring and tests. */
  stats(): DicomWebStats {
    return { ...this.counters };
  }

  /** Which instance (and frame) sample `index` is. */
  instanceOf(index: number): DicomWebInstance {
    this.layout.check(index);
    const e = this.entries[this.layout.itemOf(index)] as InstanceEntry;
    return {
      study: e.study,
      series: e.series,
      instance: e.instance,
      frame: this.layout.frameOf(index),
    };
  }

  /** Fetch and decode sample `index`; rejects with a `LoadError` or a `DicomError` naming the index. */
  async get(index: number, opts: GetOptions = {}): Promise<T> {
    this.layout.check(index);
    if (this.closed) throw new ClosedError('DicomWebSource');
    return loadSample(index, opts.signal, () => this.load(index, opts.signal), this.transform);
  }

  /**
   * Where this source's loads spent their time so far: fetching frames and decoding
   * them; undefined before the first load. `diagnose` reads it (through
   * `getCacheStats().loadPhases`) to tell decode CPU from source latency.
   */
  loadPhases(): LoadPhaseStats | undefined {
    return this.phases.snapshot();
  }

  /** Abort requests in flight; later `get`s throw `CLOSED`. */
  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.closer.abort(new ClosedError('DicomWebSource'));
  }

  private async load(index: number, outer: AbortSignal | undefined): Promise<DicomSample> {
    const e = this.layout.itemOf(index);
    const entry = this.entries[e] as InstanceEntry;
    const info = this.infos[e] as DicomImageInfo;
    const frame = this.layout.frameOf(index);
    const signal = outer ? AbortSignal.any([outer, this.closer.signal]) : this.closer.signal;
    const instanceUrl = `${this.root}/studies/${entry.study}/series/${entry.series}/instances/${entry.instance}/frames/`;
    const startAt = performance.now();
    let frames: Uint8Array[];
    let syntax: string;
    let where: string;
    if (frame > 0) {
      where = `instance ${entry.instance} (${instanceUrl}${frame})`;
      ({ frames, syntax } = await this.fetcher.frames(
        entry.instance,
        `${instanceUrl}${frame}`,
        where,
        1,
        signal,
      ));
    } else {
      // NumberOfFrames is the server's claim: bounded before any frame list, URL or buffer.
      const name = `instance ${entry.instance} on ${this.root}`;
      checkUntrustedSize(`${name} (NumberOfFrames ${entry.frames})`, entry.frames, {
        cap: MAX_VOLUME_FRAMES,
        capName:
          "the frames of one 'volume' sample (read larger instances with multiFrame: 'frames')",
        unit: 'frames',
      });
      checkDecodedSize(info, entry.frames, name);
      where = `instance ${entry.instance} (${instanceUrl}1-${entry.frames})`;
      ({ frames, syntax } = await this.fetcher.volume(entry, instanceUrl, signal));
    }
    const decodeAt = performance.now();
    const { image, tags } = await this.decoder.decodeFrames(
      frames,
      syntax,
      info,
      jsonReader(entry.tags),
      {
        where,
        index,
      },
    );
    this.phases.record(decodeAt - startAt, performance.now() - decodeAt);
    const place = this.instanceOf(index);
    return { image, tabular: tags, label: this.label ? this.label(place) : Number.NaN };
  }
}

/** Names the frame counts of `entries` (and the largest claim) in a FrameIndex size error. */
function framesClaim(entries: readonly InstanceEntry[], root: string): string {
  let most: InstanceEntry | undefined;
  for (const e of entries) if (most === undefined || e.frames > most.frames) most = e;
  const largest = most
    ? `, the most NumberOfFrames ${most.frames} by instance ${most.instance}`
    : '';
  return `the frame counts of ${entries.length} instance(s) on ${root}${largest}`;
}
