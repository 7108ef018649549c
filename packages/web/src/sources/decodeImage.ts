import { MedFusionError } from '@medfusion/core';
import {
  checkUntrustedSize,
  oneOfValues,
  optionsBag,
  positiveInt,
  registerErrorClass,
} from '@medfusion/core/internal';
import { channelsOption } from './channelsOption.js';
import { convertPixels } from './convertPixels.js';
import type { DecodedImage, ImageDtype } from './DecodedImage.js';
import { decodePlainPng } from './decodePng.js';
import { imageSize } from './imageSize.js';
import { isPng, pngTruncation } from './pngTruncation.js';
import { WebCodecsReader } from './WebCodecsReader.js';

/** Bytes of a Blob read to find its size: enough for a JPEG's metadata before its frame. */
const HEAD_BYTES = 256 * 1024;
/** Largest PNG (pixels) decoded in JavaScript rather than by the platform (between the measured 64², where JavaScript wins, and 224², where it loses). */
const JS_PNG_MAX_PIXELS = 128 * 128;

/** Options of {@link ImageDecoder}. */
export interface ImageDecoderOptions<D extends ImageDtype = ImageDtype> {
  /**
   * Channels in the output: 1 (luminance, 0.299 R + 0.587 G + 0.114 B) or 3 (R, G, B), interleaved.
   * @default 1
   */
  channels?: 1 | 3;
  /** Resize to this width in pixels; by default the image's own width. */
  width?: number;
  /** Resize to this height in pixels; by default the image's own height. */
  height?: number;
  /**
   * Largest image accepted, in pixels (width × height). The size is read from the file's
   * header (PNG, JPEG, GIF, WebP, BMP) before anything is decoded, and a larger image is
   * refused with a `SizeLimitError` (code `SIZE_LIMIT`): a 190 KB PNG can claim
   * 14,000 × 14,000 pixels, 784 MB once decoded. Other formats are checked once decoded.
   * @default 67108864 (8192 × 8192)
   */
  maxPixels?: number;
  /**
   * Element type of the decoded pixels: `'float32'`, values in [0, 1], or `'uint8'`, the
   * file's 8-bit values (0–255; luminance rounded), written in one pass into a `Uint8Array`
   * the caller keeps. `'uint8'` moves a quarter of the bytes out of a worker; normalise once,
   * in collate (`toFloat32: { scale: 1 / 255, mean, std }`) or on the GPU.
   * @default 'float32'
   */
  dtype?: D;
}

/** An image's bytes could not be decoded (not an image, or a format the browser lacks). */
export class ImageDecodeError extends MedFusionError {
  constructor(message: string, cause?: unknown) {
    super('IMAGE_DECODE', message, { cause });
    this.name = 'ImageDecodeError';
  }
}
registerErrorClass('ImageDecodeError', ImageDecodeError);

/**
 * Decodes PNG/JPEG/WebP bytes with the platform, in a page or in a worker, into
 * pixels of `dtype` (normalised Float32Array pixels by default, or the file's uint8
 * values). A JPEG or PNG kept at its own size is decoded with WebCodecs' `ImageDecoder`
 * where the engine has it (Chromium), its frame read with `VideoFrame.copyTo` (a third to
 * a quarter of the CPU of the canvas path); otherwise `createImageBitmap` and an
 * `OffscreenCanvas` decode it (one canvas reused per decoder). Bytes (not a Blob) of an
 * 8-bit grey or RGB PNG of at most 128 × 128 pixels kept at its own size are decoded in
 * JavaScript on the calling thread instead (fast-png; same values, a third of the CPU).
 * Colours are read unconverted (`colorSpaceConversion: 'none'`) so the values are the
 * file's, and every path gives the same values (a JPEG's as libjpeg decodes it), except that
 * WebKit's `createImageBitmap` applies a PNG's gAMA chunk regardless.
 *
 * @example
 * const decoder = new ImageDecoder({ channels: 1 });
 * const { data, width, height } = await decoder.decode(await (await fetch(url)).blob());
 * // in a decode worker: uint8 out, normalised once in collate
 * const rgb = new ImageDecoder({ channels: 3, dtype: 'uint8' }); // data: Uint8Array
 */
export class ImageDecoder<D extends ImageDtype = 'float32'> {
  private readonly channels: 1 | 3;
  private readonly dtype: D;
  private readonly webCodecs = new WebCodecsReader();
  private readonly width: number | undefined;
  private readonly height: number | undefined;
  private readonly maxPixels: number;
  private canvas: OffscreenCanvas | undefined;
  private ctx: OffscreenCanvasRenderingContext2D | undefined;

  constructor(options: ImageDecoderOptions<D> = {}) {
    const {
      channels = 1,
      width,
      height,
      maxPixels = 2 ** 26,
      dtype = 'float32',
    } = optionsBag('options', options);
    this.channels = channelsOption(channels);
    this.dtype = oneOfValues('dtype', dtype, ['float32', 'uint8'] as const) as D;
    this.width = width === undefined ? undefined : positiveInt('width', width);
    this.height = height === undefined ? undefined : positiveInt('height', height);
    this.maxPixels = positiveInt('maxPixels', maxPixels);
  }

  /**
   * Decode `bytes` (a Blob or raw bytes) into pixels of the decoder's `dtype`. The image's
   * size is checked against `maxPixels` from its header first, and it is decoded at the
   * target size where the platform can (`createImageBitmap`'s resize options). The pixels
   * are a fresh array each call, the caller's to keep or transfer.
   * @param name - names the image in errors (e.g. its URL)
   */
  async decode(bytes: Blob | ArrayBuffer | Uint8Array, name?: string): Promise<DecodedImage<D>> {
    const label = name ?? `of ${bytes instanceof Blob ? bytes.size : bytes.byteLength} bytes`;
    const head =
      bytes instanceof Blob
        ? new Uint8Array(await bytes.slice(0, HEAD_BYTES).arrayBuffer())
        : bytes instanceof Uint8Array
          ? bytes
          : new Uint8Array(bytes);
    const size = imageSize(head);
    if (size) this.checkPixels(label, size.width, size.height);
    // a Blob's bytes once read whole (a PNG's, for the check below)
    let whole: Uint8Array | undefined;
    if (isPng(head)) {
      // A cut-off PNG must fail here: some engines' createImageBitmap draws it blank.
      whole =
        bytes instanceof Blob && bytes.size > head.length
          ? new Uint8Array(await bytes.arrayBuffer())
          : head;
      const truncated = pngTruncation(whole);
      if (truncated)
        throw new ImageDecodeError(`could not decode the image ${label}: ${truncated}`);
    }
    const targetWidth = this.width ?? size?.width;
    const targetHeight = this.height ?? size?.height;
    // Bytes of a small plain PNG at its own size: decoded here, without the Blob round trip
    // through the browser process and the canvas (a third of the CPU per image at 64²). Not
    // for large ones: at 224² RGB the JavaScript inflate took ~9x the platform's time in
    // Chromium workers (`pnpm bench feed --trace`, shards-png: 25 vs 224 images/s in 2 workers).
    if (
      !(bytes instanceof Blob) &&
      size &&
      size.width * size.height <= JS_PNG_MAX_PIXELS &&
      targetWidth === size.width &&
      targetHeight === size.height
    ) {
      try {
        const decoded = decodePlainPng(head, this.channels, this.dtype);
        if (decoded) return decoded;
      } catch {
        // corrupt: the platform decoder below says so with its own error
      }
    }
    // At its own size: WebCodecs where the engine has it (undefined where it does not apply).
    if (size && targetWidth === size.width && targetHeight === size.height) {
      const decoded = await this.webCodecs.decode(
        bytes instanceof Blob ? (whole ?? bytes) : head,
        head,
        size,
        this.channels,
        this.dtype,
      );
      if (decoded) return decoded;
    }
    // Made only here: a Blob of the bytes is a copy the JavaScript path above does not need.
    const blob =
      bytes instanceof Blob ? bytes : new Blob([bytes as Uint8Array<ArrayBuffer> | ArrayBuffer]);
    let bitmap: ImageBitmap;
    try {
      bitmap = await createImageBitmap(blob, {
        colorSpaceConversion: 'none',
        premultiplyAlpha: 'none',
        ...(targetWidth && targetHeight
          ? { resizeWidth: targetWidth, resizeHeight: targetHeight }
          : {}),
      });
    } catch (err) {
      throw new ImageDecodeError(`could not decode the image ${label}`, err);
    }
    try {
      if (!size) this.checkPixels(label, bitmap.width, bitmap.height);
      const width = this.width ?? bitmap.width;
      const height = this.height ?? bitmap.height;
      const ctx = this.context(width, height);
      ctx.clearRect(0, 0, width, height);
      ctx.drawImage(bitmap, 0, 0, width, height);
      const rgba = ctx.getImageData(0, 0, width, height).data;
      const data = convertPixels(this.dtype, rgba, 4, this.channels, width * height);
      return { data, width, height, channels: this.channels };
    } finally {
      bitmap.close();
    }
  }

  private checkPixels(label: string, width: number, height: number): void {
    checkUntrustedSize(`image ${label} (${width} × ${height})`, width * height, {
      cap: this.maxPixels,
      capName: 'maxPixels',
      unit: 'pixels',
    });
  }

  private context(width: number, height: number): OffscreenCanvasRenderingContext2D {
    if (!this.canvas || !this.ctx) {
      this.canvas = new OffscreenCanvas(width, height);
      const ctx = this.canvas.getContext('2d', { willReadFrequently: true });
      if (!ctx) throw new ImageDecodeError('OffscreenCanvas 2D context is not available');
      this.ctx = ctx;
    } else if (this.canvas.width !== width || this.canvas.height !== height) {
      this.canvas.width = width;
      this.canvas.height = height;
    }
    return this.ctx;
  }
}
