import { throwIfAborted } from '@medfusion/core/internal';
import type { HttpOptions } from '../../remote/RangeReader.js';
import { RemoteReadError, SourceFormatError } from '../../remote/RemoteError.js';
import { fetchObject } from '../dicom/fetchObject.js';
import { TransferSyntax } from '../dicom/transferSyntax.js';
import type { DicomWebStats } from './dicomWebOptions.js';
import type { InstanceEntry } from './InstanceResolver.js';
import { boundaryOf, parseMultipart, transferSyntaxOf } from './multipart.js';

/** Frame numbers in one WADO-RS request of a 'volume' sample: URLs stay short (about 1.5 KB). */
const FRAMES_PER_REQUEST = 256;

/** What WADO-RS is asked for: frames as stored (`*`), or Explicit VR Little Endian as a fallback. */
const ACCEPT_AS_STORED = 'multipart/related; type="application/octet-stream"; transfer-syntax=*';
const ACCEPT_EXPLICIT = `multipart/related; type="application/octet-stream"; transfer-syntax=${TransferSyntax.ExplicitVRLittleEndian}`;

/** Frames and the transfer syntax they came in. */
export interface FetchedFrames {
  frames: Uint8Array[];
  syntax: string;
}

/**
 * WADO-RS frame requests of one {@link DicomWebSource}: multipart answers checked part for
 * part, the transfer syntax negotiated per instance, the request counters kept in `counters`.
 */
export class FrameFetcher {
  /** Instances whose frames the server refused as stored, then sent as Explicit VR LE. */
  private readonly explicitOnly = new Set<string>();

  constructor(
    private readonly http: HttpOptions,
    private readonly counters: Pick<DicomWebStats, 'frameRequests' | 'transcodeFallbacks'>,
  ) {}

  /**
   * Every frame of an instance, asked {@link FRAMES_PER_REQUEST} at a time so no URL grows
   * with the server's NumberOfFrames; each answer must hold one part per frame asked, and
   * all in one transfer syntax.
   */
  async volume(
    entry: InstanceEntry,
    instanceUrl: string,
    signal: AbortSignal,
  ): Promise<FetchedFrames> {
    const frames: Uint8Array[] = [];
    let syntax = '';
    for (let first = 1; first <= entry.frames; first += FRAMES_PER_REQUEST) {
      const last = Math.min(entry.frames, first + FRAMES_PER_REQUEST - 1);
      const numbers: number[] = [];
      for (let f = first; f <= last; f++) numbers.push(f);
      const url = `${instanceUrl}${numbers.join(',')}`;
      const where = `instance ${entry.instance} (${url})`;
      const chunk = await this.frames(entry.instance, url, where, numbers.length, signal);
      if (syntax !== '' && chunk.syntax !== syntax) {
        throw new SourceFormatError(
          `${where}: frames ${first}-${last} came as ${chunk.syntax}, the ones before as ${syntax}`,
        );
      }
      syntax = chunk.syntax;
      for (const part of chunk.frames) frames.push(part);
    }
    return { frames, syntax };
  }

  /**
   * Frames `url` names, as stored; after a refusal (not a transient error) in Explicit VR Little
   * Endian, and from then on for that instance once the server answered that way.
   */
  async frames(
    instance: string,
    url: string,
    where: string,
    wanted: number,
    signal: AbortSignal,
  ): Promise<FetchedFrames> {
    if (!this.explicitOnly.has(instance)) {
      try {
        // As stored, retried on network errors and transient statuses, not on a refusal.
        return await this.multipart(url, where, wanted, ACCEPT_AS_STORED, signal, refusesSyntax);
      } catch (error) {
        throwIfAborted(signal);
        if (!refusesSyntax(error)) throw error;
        this.counters.transcodeFallbacks++;
        const frames = await this.multipart(url, where, wanted, ACCEPT_EXPLICIT, signal);
        // Only a refusal the server then answers in Explicit VR LE switches the instance for good.
        this.explicitOnly.add(instance);
        return frames;
      }
    }
    return this.multipart(url, where, wanted, ACCEPT_EXPLICIT, signal);
  }

  /**
   * One WADO-RS frame request and its body, retried as the `retry` option says (see
   * {@link fetchObject}); an answer without exactly `wanted` parts (one a frame) is `BAD_FORMAT`.
   */
  private async multipart(
    url: string,
    where: string,
    wanted: number,
    accept: string,
    signal: AbortSignal,
    final?: (error: unknown) => boolean,
  ): Promise<FetchedFrames> {
    this.counters.frameRequests++;
    // fetchObject hands back the body only: keep the answer's Content-Type on the way.
    const base = this.http.fetch ?? globalThis.fetch.bind(globalThis);
    let contentType = '';
    const fetchFn: typeof fetch = async (input, init) => {
      const res = await base(input, init);
      contentType = res.headers.get('Content-Type') ?? '';
      return res;
    };
    const http = {
      ...this.http,
      fetch: fetchFn,
      headers: { ...this.http.headers, Accept: accept },
    };
    const body = await fetchObject(url, http, signal, final);
    const boundary = boundaryOf(contentType);
    if (!/^multipart\/related/i.test(contentType) || !boundary) {
      throw new SourceFormatError(
        `${where}: the answer is ${JSON.stringify(contentType)}, not multipart/related with a boundary`,
      );
    }
    const parts = parseMultipart(body, boundary, where);
    // One part a frame asked for: more or fewer would decode to a bigger or smaller image.
    if (parts.length !== wanted) {
      throw new SourceFormatError(
        `${where}: the answer holds ${parts.length} parts for ${wanted} frame${wanted === 1 ? '' : 's'} asked`,
      );
    }
    const syntax =
      transferSyntaxOf(parts[0]?.contentType ?? '') ??
      transferSyntaxOf(contentType) ??
      TransferSyntax.ExplicitVRLittleEndian;
    return { frames: parts.map((p) => p.body), syntax };
  }
}

/** Statuses that say "try again later", not "cannot": retried, never a reason to change the syntax. */
const TRANSIENT_STATUS = new Set([408, 429, 502, 503, 504]);

/**
 * The server refused to send the frames as asked: an error status other than the transient
 * ones (Orthanc answers 500 for Deflated frames asked as stored, other servers 406 or 415).
 */
function refusesSyntax(error: unknown): boolean {
  return (
    error instanceof RemoteReadError &&
    error.status !== undefined &&
    error.status >= 400 &&
    !TRANSIENT_STATUS.has(error.status)
  );
}
