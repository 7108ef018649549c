/// <reference path="./codecModules.d.ts" />
import { DicomError } from './DicomError.js';
import type { DicomImageInfo } from './imageInfo.js';
import { decodeRle } from './rle.js';
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
 * const codecs = { '1.2.840.10008.1.2.4.201': { decode: (frame, info) => myHtj2k(frame, info) } };
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
 * Loads an Emscripten codec once per realm (page or worker). The `.wasm` file
 * is located with `new URL(..., import.meta.url)`, which bundlers (Vite,
 * webpack, Rollup with its URL plugin) rewrite to the emitted asset. The
 * module's own printing is dropped: OpenJPEG writes three `[INFO]` lines per
 * frame, each a console message (costly when DevTools or a test driver listens).
 */
function lazyWasm(
  load: () => Promise<{ default: unknown }>,
  wasmUrl: () => URL,
): () => Promise<WasmModule> {
  let module: Promise<WasmModule> | undefined;
  return () => {
    module ??= load().then((m) => {
      const factory = m.default as (o: object) => Promise<WasmModule>;
      return factory({
        locateFile: (path: string) => (path.endsWith('.wasm') ? wasmUrl().href : path),
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
);
const charls = lazyWasm(
  () => import('@cornerstonejs/codec-charls/decodewasmjs'),
  () => new URL('@cornerstonejs/codec-charls/decodewasm', import.meta.url),
);
const openjpeg = lazyWasm(
  () => import('@cornerstonejs/codec-openjpeg/decodewasmjs'),
  () => new URL('@cornerstonejs/codec-openjpeg/decodewasm', import.meta.url),
);

/**
 * A codec that runs one Cornerstone WASM decoder class, a fresh decoder per
 * frame: a reused one (as Cornerstone does) keeps the last frame's output when
 * a broken codestream makes OpenJPEG give up without throwing, and the next
 * frame would silently get those pixels; a fresh one has none, which fails
 * the frame with `DICOM_FORMAT`.
 */
function wasmCodec(load: () => Promise<WasmModule>, className: string, label: string): DicomCodec {
  return {
    async decode(frame, info) {
      const Decoder = (await load())[className];
      if (!Decoder) throw new DicomError('DICOM_FORMAT', `${label}: the codec has no ${className}`);
      const decoder = new Decoder();
      try {
        decoder.getEncodedBuffer(frame.length).set(frame);
        decoder.decode();
        // The decoded buffer lives in WASM memory: copy it out before delete().
        return samplesOf(decoder.getDecodedBuffer().slice(), info);
      } catch (error) {
        throw new DicomError('DICOM_FORMAT', `${label} frame failed to decode: ${String(error)}`, {
          cause: error,
        });
      } finally {
        decoder.delete();
      }
    },
  };
}

/** jpeg-lossless-decoder-js, imported once per realm. */
let losslessModule: Promise<typeof import('jpeg-lossless-decoder-js')> | undefined;
let LosslessDecoder: typeof import('jpeg-lossless-decoder-js').Decoder | undefined;

const jpegLossless: DicomCodec = {
  async decode(frame, info) {
    if (!LosslessDecoder) {
      losslessModule ??= import('jpeg-lossless-decoder-js');
      losslessModule.catch(() => {
        losslessModule = undefined;
      });
      LosslessDecoder = (await losslessModule).Decoder;
    }
    const Decoder = LosslessDecoder;
    try {
      const copy = frame.slice();
      const out = new Decoder().decode(copy.buffer, 0, copy.length, info.bitsAllocated > 8 ? 2 : 1);
      // A typed array (8 or 16 bits per sample) or its buffer, depending on the version.
      const bytes = ArrayBuffer.isView(out)
        ? new Uint8Array(out.buffer, out.byteOffset, out.byteLength)
        : new Uint8Array(out);
      return samplesOf(bytes, info);
    } catch (error) {
      throw new DicomError(
        'DICOM_FORMAT',
        `JPEG Lossless frame failed to decode: ${String(error)}`,
        {
          cause: error,
        },
      );
    }
  },
};

const rle: DicomCodec = { decode: (frame, info) => samplesOf(decodeRle(frame, info), info) };
const jpegBaseline = wasmCodec(libjpegTurbo, 'JPEGDecoder', 'JPEG Baseline');
const jpegLs = wasmCodec(charls, 'JpegLSDecoder', 'JPEG-LS');
const j2k = wasmCodec(openjpeg, 'J2KDecoder', 'JPEG 2000');

/** The built-in codecs, by transfer syntax UID. */
export const builtInCodecs: Readonly<Record<string, DicomCodec>> = {
  [TransferSyntax.RLELossless]: rle,
  [TransferSyntax.JPEGBaseline]: jpegBaseline,
  [TransferSyntax.JPEGLossless]: jpegLossless,
  [TransferSyntax.JPEGLosslessSV1]: jpegLossless,
  [TransferSyntax.JPEGLSLossless]: jpegLs,
  [TransferSyntax.JPEGLSNearLossless]: jpegLs,
  [TransferSyntax.JPEG2000Lossless]: j2k,
  [TransferSyntax.JPEG2000]: j2k,
};
