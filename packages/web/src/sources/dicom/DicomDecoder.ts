import {
  badRange,
  badType,
  object,
  oneOfValues,
  optionsBag,
  positiveInt,
  showValue,
  withDefault,
} from '@medfusion/core/internal';
import { channelsOption } from '../channelsOption.js';
import type { ImageDtype, ImagePixels } from '../DecodedImage.js';
import { BuiltInCodec, builtInCodecs, type DicomCodec } from './codecs.js';
import { DicomError } from './DicomError.js';
import type { DicomDecodeOptions, DicomDecoderOptions, DicomImage } from './dicomOptions.js';
import type { TagReader } from './dicomTags.js';
import { FrameResizer } from './FrameResizer.js';
import { type DicomImageInfo, frameLength } from './imageInfo.js';
import { inflateNative, parsePart10 } from './parsePart10.js';
import { checkDecodedSize, checkNativePixels } from './pixelLimits.js';
import { checkedRleFrameBytes } from './rle.js';
import { type DicomSamples, samplesOf } from './samples.js';
import { TagFields } from './tagFields.js';
import { writeFrame } from './toFloat32.js';
import { describeSyntax, isNativeSyntax, TransferSyntax } from './transferSyntax.js';

/** Where a decode comes from, for messages and errors. */
export interface DecodeContext {
  /** Names the object in messages (a URL, never a patient attribute). */
  where?: string;
  /** Dataset index the error is about. */
  index?: number;
}

function checkWindow(window: DicomDecodeOptions['window']): void {
  if (window === undefined || window === 'file') return;
  const expected = "'file' or { center, width } with a finite center and width >= 1";
  if (typeof window === 'string') throw badRange('window', expected, window);
  object('window', window, expected);
  for (const [key, min] of [
    ['center', Number.NEGATIVE_INFINITY],
    ['width', 1],
  ] as const) {
    const v: unknown = window[key];
    if (typeof v !== 'number') throw badType(`window.${key}`, 'a finite number', v);
    if (!Number.isFinite(v) || v < min) {
      throw badRange(`window.${key}`, min === 1 ? 'a finite number >= 1' : 'a finite number', v);
    }
  }
}

/**
 * Turns DICOM objects into float pixels and tabular values: parsing with
 * dicom-parser, pixel data through the codec of its transfer syntax (native,
 * Deflated, RLE, JPEG Baseline, JPEG Lossless, JPEG-LS, JPEG 2000), then
 * Rescale Slope/Intercept, the window and MONOCHROME1 inversion, and, when asked, the
 * resize (`width`, `height`) and channel count (`channels`) in the same pass. Runs in a
 * page or a Web Worker; the sources use it per sample.
 *
 * @example
 * const decoder = new DicomDecoder({ window: { center: 40, width: 400 }, tags: ['PatientAge'] });
 * const { image, tags } = await decoder.decode(new Uint8Array(await (await fetch(url)).arrayBuffer()));
 * // for a 224² RGB network: resized, grey repeated to 3 channels, in one pass
 * const ct = new DicomDecoder({ window: { center: 40, width: 400 }, width: 224, height: 224, channels: 3 });
 * // the same as uint8 (round(value × 255)): a quarter of the bytes out of a worker
 * const ct8 = new DicomDecoder({ window: { center: 40, width: 400 }, width: 224, height: 224, channels: 3, dtype: 'uint8' });
 */
export class DicomDecoder<D extends ImageDtype = 'float32'> {
  /** Names of the `tags` values, in order. */
  readonly tagNames: readonly string[];
  /** `multiFrame` as given (default `'volume'`). */
  readonly multiFrame: 'volume' | 'frames';
  /** `width` as given (undefined: each image's own). */
  readonly width: number | undefined;
  /** `height` as given (undefined: each image's own). */
  readonly height: number | undefined;
  /** `channels` as given (undefined: each image's Samples per Pixel). */
  readonly channels: 1 | 3 | undefined;
  /** `dtype` as given (default `'float32'`). */
  readonly dtype: D;
  private readonly fields: TagFields;
  private readonly resizer = new FrameResizer();
  private readonly options: DicomDecodeOptions;
  private readonly codecs: Readonly<Record<string, DicomCodec | BuiltInCodec>>;

  constructor(options: DicomDecoderOptions<D> = {}) {
    optionsBag('options', options);
    checkWindow(options.window);
    const multiFrame = withDefault('multiFrame', options.multiFrame, 'volume', (n, v) =>
      oneOfValues(n, v, ['volume', 'frames'] as const),
    );
    const codecs = withDefault('codecs', options.codecs, {}, (n, v) =>
      object(
        n,
        v as Readonly<Record<string, DicomCodec>>,
        'an object keyed by transfer syntax UID',
      ),
    );
    for (const [uid, codec] of Object.entries(codecs)) {
      if (!codec || typeof codec.decode !== 'function') {
        throw new TypeError(
          `codecs[${JSON.stringify(uid)}] must have a decode function, got ${showValue(codec)}`,
        );
      }
    }
    this.width = options.width === undefined ? undefined : positiveInt('width', options.width);
    this.height = options.height === undefined ? undefined : positiveInt('height', options.height);
    this.channels = options.channels === undefined ? undefined : channelsOption(options.channels);
    this.dtype = withDefault('dtype', options.dtype, 'float32', (n, v) =>
      oneOfValues(n, v, ['float32', 'uint8'] as const),
    ) as D;
    this.options = options;
    this.multiFrame = multiFrame;
    this.fields = new TagFields(options.tags);
    this.tagNames = this.fields.labels;
    this.codecs = { ...builtInCodecs, ...codecs };
  }

  /**
   * Decode a Part 10 file: all frames (`'volume'`), or frame `frame` (`'frames'`, default 0).
   * Rejects with a {@link DicomError}: `DICOM_FORMAT`, `DICOM_UNSUPPORTED`, `DICOM_MISSING_TAG`;
   * or a `SizeLimitError` (`SIZE_LIMIT`) when the header claims more frames or pixels than
   * the bytes hold or than 2^30 floats (4 GiB), before anything that size is
   * allocated.
   */
  async decode(
    bytes: Uint8Array,
    context: DecodeContext & { frame?: number } = {},
  ): Promise<DicomImage<D>> {
    const where = context.where ?? 'DICOM object';
    const file = parsePart10(bytes, where, context.index, await inflateNative(bytes));
    const count = file.info.numberOfFrames;
    const frames =
      this.multiFrame === 'volume'
        ? Array.from({ length: count }, (_, i) => i)
        : [this.checkFrame(context.frame ?? 0, count, where)];
    const encoded = frames.map((i) => file.frame(i));
    return this.decodeFrames(encoded, file.transferSyntax, file.info, file.tags, {
      where,
      ...context,
    });
  }

  /**
   * Decode frames fetched on their own (DICOMweb): `frames` are the frame bytes
   * in `transferSyntax`, `info` and `tags` come from the object's metadata.
   * @internal used by DicomWebSource
   */
  async decodeFrames(
    frames: readonly Uint8Array[],
    transferSyntax: string,
    info: DicomImageInfo,
    tags: TagReader,
    context: DecodeContext = {},
  ): Promise<DicomImage<D>> {
    const where = context.where ?? 'DICOM object';
    const native = isNativeSyntax(transferSyntax);
    const codec = native ? undefined : this.codecs[transferSyntax];
    if (!native && !codec) {
      throw new DicomError(
        'DICOM_UNSUPPORTED',
        `${where}: no codec for transfer syntax ${describeSyntax(transferSyntax)}; pass one in the codecs option`,
        context.index === undefined ? undefined : { index: context.index },
      );
    }
    const tagValues = new Float32Array(this.tagNames.length);
    this.fields.read(tags, tagValues, 0, where, context.index);
    // What the header claims, against the bytes given and the decode limit, before allocating.
    checkDecodedSize(info, frames.length, where);
    for (const bytes of frames) {
      if (native) checkNativePixels(info, 1, bytes.length, where);
      else if (transferSyntax === TransferSyntax.RLELossless)
        checkedRleFrameBytes(bytes, info, where);
    }
    const target = {
      height: this.height ?? info.rows,
      width: this.width ?? info.columns,
      channels: this.channels ?? (info.samplesPerPixel as 1 | 3),
    };
    const uint8 = this.dtype === 'uint8';
    if (uint8) this.checkUint8(info, where, context.index);
    // uint8 is written by the resizer, at any size: one rounding per output value.
    const same =
      !uint8 &&
      target.height === info.rows &&
      target.width === info.columns &&
      target.channels === info.samplesPerPixel;
    if (!same) {
      const asked = { ...info, rows: target.height, columns: target.width };
      checkDecodedSize({ ...asked, samplesPerPixel: target.channels }, frames.length, where);
    }
    const n = same ? frameLength(info) : target.height * target.width * target.channels;
    const data = (
      uint8 ? new Uint8Array(n * frames.length) : new Float32Array(n * frames.length)
    ) as ImagePixels<D>;
    const pixel = {
      window: this.options.window,
      ybrToRgb: native || transferSyntax === TransferSyntax.RLELossless,
    };
    let offset = 0;
    // Built-in codecs hand over views of their own memory: written as floats before they are freed.
    const write = same
      ? (samples: DicomSamples) =>
          writeFrame(samples, info, pixel, data as Float32Array, offset, where)
      : (samples: DicomSamples) =>
          this.resizer.write(
            samples,
            info,
            pixel,
            target,
            data as Float32Array | Uint8Array,
            offset,
            where,
          );
    for (let f = 0; f < frames.length; f++, offset += n) {
      const bytes = frames[f] as Uint8Array;
      try {
        if (codec instanceof BuiltInCodec) await codec.decodeInto(bytes, info, write);
        else if (codec) write(await codec.decode(bytes, info));
        else write(samplesOf(bytes, info, transferSyntax === TransferSyntax.ExplicitVRBigEndian));
      } catch (error) {
        if (error instanceof DicomError) {
          // A codec's error does not know the object: name it (writeFrame's already do).
          const named = error.message.startsWith(where);
          if (named && (context.index === undefined || error.index !== undefined)) throw error;
          const index = error.index ?? context.index;
          throw new DicomError(error.code, named ? error.message : `${where}: ${error.message}`, {
            cause: error,
            ...(index === undefined ? {} : { index }),
          });
        }
        throw new DicomError('DICOM_FORMAT', `${where}: ${String(error)}`, {
          cause: error,
          ...(context.index === undefined ? {} : { index: context.index }),
        });
      }
    }
    const hwc = [target.height, target.width, target.channels];
    const shape =
      this.multiFrame === 'volume' && info.numberOfFrames > 1 ? [frames.length, ...hwc] : hwc;
    return { image: { data, shape }, tags: tagValues, transferSyntax, frames: info.numberOfFrames };
  }

  /**
   * The resize and channel options for a source's fingerprint: empty when none is set (so
   * fingerprints made before these options existed stay the same), else one entry, so that
   * samples cached at another size or channel count are never returned.
   * @internal used by DicomSource and DicomWebSource
   */
  sampleShapeKey(): unknown[] {
    const { width, height, channels } = this;
    if (width === undefined && height === undefined && channels === undefined) return [];
    return [{ width: width ?? null, height: height ?? null, channels: channels ?? null }];
  }

  /** A grey image without a window or colour over 8 bits has values 0–255 cannot hold. */
  private checkUint8(info: DicomImageInfo, where: string, index: number | undefined): void {
    const grey = info.samplesPerPixel === 1;
    if (grey ? this.options.window !== undefined : info.bitsAllocated === 8) return;
    throw new DicomError(
      'DICOM_UNSUPPORTED',
      grey
        ? `${where}: dtype 'uint8' needs a window for a grey image (its values are rescaled units)`
        : `${where}: dtype 'uint8' takes 8-bit colour; this image has ${info.bitsAllocated} bits allocated`,
      index === undefined ? undefined : { index },
    );
  }

  private checkFrame(frame: number, count: number, where: string): number {
    if (!Number.isInteger(frame) || frame < 0 || frame >= count) {
      throw new RangeError(`frame ${String(frame)} is out of range [0, ${count}) of ${where}`);
    }
    return frame;
  }
}
