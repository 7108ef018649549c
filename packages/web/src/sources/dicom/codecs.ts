/// <reference path="./codecModules.d.ts" />
import { DicomError } from './DicomError.js';
import type { DicomImageInfo } from './imageInfo.js';
import { decodeJpegLossless } from './jpegLossless.js';
import { checkedRleFrameBytes, decodeRle } from './rle.js';
import { type DicomSamples, samplesOf } from './samples.js';
import { TransferSyntax } from './transferSyntax.js';

/**
 * Decodes the encapsulated frames of one transfer syntax. `decode` gets one
 * frame's bytes and the image description and returns the frame's samples,
 * interleaved (R G B R G B for colour), typed as the header says (see
 * {@link DicomSamples}). Pass your own in the `codecs` option, keyed by
 * transfer syntax UID, to add a syntax or replace a built-in decoder.
 *
 * @example
 * const codecs: Record<string, DicomCodec> = {
 *   '1.2.840.10008.1.2.4.201': { decode: (frame, info) => myHtj2k(frame, info) },
 * };
 */
export interface DicomCodec {
  /** Decode one frame. */
  decode(frame: Uint8Array, info: DicomImageInfo): DicomSamples | Promise<DicomSamples>;
}

/** The Emscripten decoder classes of the Cornerstone codec packages. */
interface WasmDecoder {
  getEncodedBuffer(length: number): Uint8Array;
  getDecodedBuffer(): Uint8Array;
  decode(): void;
  delete(): void;
}
type WasmModule = Record<string, new () => WasmDecoder>;

/**
 * In Node (no bundler rewrote `new URL(..., import.meta.url)`; the CLI's `pack
 * --decode` runs this decoder in worker threads): the `.wasm` file's path,
 * resolved like an import. Undefined in browsers.
 */
function nodeWasmPath(specifier: string): string | undefined {
  const node = (globalThis as { process?: { versions?: { node?: string } } }).process?.versions
    ?.node;
  const resolve = (import.meta as { resolve?: (s: string) => string }).resolve;
  if (!node || !resolve) return undefined;
  return decodeURIComponent(new URL(resolve(specifier)).pathname);
}

/**
 * Loads an Emscripten codec once per realm (page or worker). The `.wasm` file
 * is located with `new URL(..., import.meta.url)`, which bundlers (Vite,
 * webpack, Rollup with its URL plugin) rewrite to the emitted asset. The
 * module's own printing is dropped: OpenJPEG writes three `[INFO]` lines per
 * frame, each a console message (costly when DevTools or a test driver listens).
 */
function lazyWasm(
  load: () => Promise<{ default: unknown }>,
  wasmUrl: () => URL,
  specifier: string,
): () => Promise<WasmModule> {
  let module: Promise<WasmModule> | undefined;
  return () => {
    module ??= load().then((m) => {
      const factory = m.default as (o: object) => Promise<WasmModule>;
      return factory({
        locateFile: (path: string) =>
          path.endsWith('.wasm') ? (nodeWasmPath(specifier) ?? wasmUrl().href) : path,
        print: () => {},
        printErr: () => {},
      });
    });
    module.catch(() => {
      module = undefined;
    });
    return module;
  };
}

const libjpegTurbo = lazyWasm(
  () => import('@cornerstonejs/codec-libjpeg-turbo-8bit/decodewasmjs'),
  () => new URL('@cornerstonejs/codec-libjpeg-turbo-8bit/decodewasm', import.meta.url),
  '@cornerstonejs/codec-libjpeg-turbo-8bit/decodewasm',
);
const charls = lazyWasm(
  () => import('@cornerstonejs/codec-charls/decodewasmjs'),
  () => new URL('@cornerstonejs/codec-charls/decodewasm', import.meta.url),
  '@cornerstonejs/codec-charls/decodewasm',
);
const openjpeg = lazyWasm(
  () => import('@cornerstonejs/codec-openjpeg/decodewasmjs'),
  () => new URL('@cornerstonejs/codec-openjpeg/decodewasm', import.meta.url),
  '@cornerstonejs/codec-openjpeg/decodewasm',
);

/**
 * Receives one frame's samples while they are valid: a built-in codec hands
 * out views of its own memory (the WASM heap, a reused scratch buffer) that
 * are freed or overwritten once the call returns, so the sink must consume
 * them synchronously (the decoder writes them as floats into the output).
 */
export type SampleSink = (samples: DicomSamples) => void;

/**
 * A built-in codec: {@link BuiltInCodec.decodeInto} hands the decoded samples
 * to a sink straight from the codec's output memory, with no copy per frame.
 */
export class BuiltInCodec {
  constructor(
    private readonly run: (
      frame: Uint8Array,
      info: DicomImageInfo,
      sink: SampleSink,
    ) => void | Promise<void>,
  ) {}

  /** Decode one frame; `sink` gets its samples (valid only during the call) or it throws. */
  decodeInto(frame: Uint8Array, info: DicomImageInfo, sink: SampleSink): void | Promise<void> {
    return this.run(frame, info, sink);
  }
}

/**
 * A codec that runs one Cornerstone WASM decoder class, a fresh decoder per
 * frame: a reused one (as Cornerstone does) keeps the last frame's output when
 * a broken codestream makes OpenJPEG give up without throwing, and the next
 * frame would silently get those pixels; a fresh one has none, which fails
 * the frame with `DICOM_FORMAT`. The sink reads the decoded samples in WASM
 * memory before the decoder is deleted (no copy out of the heap).
 */
function wasmCodec(
  load: () => Promise<WasmModule>,
  className: string,
  label: string,
): BuiltInCodec {
  return new BuiltInCodec(async (frame, info, sink) => {
    const Decoder = (await load())[className];
    if (!Decoder) throw new DicomError('DICOM_FORMAT', `${label}: the codec has no ${className}`);
    const decoder = new Decoder();
    try {
      let decoded: Uint8Array;
      try {
        decoder.getEncodedBuffer(frame.length).set(frame);
        decoder.decode();
        decoded = decoder.getDecodedBuffer();
      } catch (error) {
        throw new DicomError('DICOM_FORMAT', `${label} frame failed to decode: ${String(error)}`, {
          cause: error,
        });
      }
      // Nothing allocates in the WASM heap between here and delete(): the view stays valid.
      sink(samplesOf(decoded, info));
    } finally {
      decoder.delete();
    }
  });
}

/** JPEG Lossless (process 14, SV1 and any predictor): our decoder, see {@link decodeJpegLossless}. */
const jpegLossless = new BuiltInCodec((frame, info, sink) => {
  const decoded = decodeJpegLossless(frame, info);
  sink(samplesOf(new Uint8Array(decoded.buffer, decoded.byteOffset, decoded.byteLength), info));
});

/**
 * RLE frames decode into one scratch buffer per realm (page or worker), grown
 * when a bigger frame comes, never per frame: {@link decodeRle} writes every
 * byte of the frame or throws, so no byte of an earlier frame survives.
 */
let rleScratch = new Uint8Array(0);
const rle = new BuiltInCodec((frame, info, sink) => {
  const size = checkedRleFrameBytes(frame, info);
  if (rleScratch.length < size) rleScratch = new Uint8Array(size);
  sink(samplesOf(decodeRle(frame, info, rleScratch.subarray(0, size)), info));
});
const jpegBaseline = wasmCodec(libjpegTurbo, 'JPEGDecoder', 'JPEG Baseline');
const jpegLs = wasmCodec(charls, 'JpegLSDecoder', 'JPEG-LS');
const j2k = wasmCodec(openjpeg, 'J2KDecoder', 'JPEG 2000');

/** The built-in codecs, by transfer syntax UID. */
export const builtInCodecs: Readonly<Record<string, BuiltInCodec>> = {
  [TransferSyntax.RLELossless]: rle,
  [TransferSyntax.JPEGBaseline]: jpegBaseline,
  [TransferSyntax.JPEGLossless]: jpegLossless,
  [TransferSyntax.JPEGLosslessSV1]: jpegLossless,
  [TransferSyntax.JPEGLSLossless]: jpegLs,
  [TransferSyntax.JPEGLSNearLossless]: jpegLs,
  [TransferSyntax.JPEG2000Lossless]: j2k,
  [TransferSyntax.JPEG2000]: j2k,
};
