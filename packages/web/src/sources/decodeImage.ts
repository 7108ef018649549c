import { MedFusionError } from '@medfusion/core';
import {
  badRange,
  badType,
  checkUntrustedSize,
  optionsBag,
  positiveInt,
  registerErrorClass,
} from '@medfusion/core/internal';
import type { DecodedImage } from './DecodedImage.js';
import { decodePlainPng } from './decodePng.js';
import { imageSize } from './imageSize.js';
import { pixelsToFloat32 } from './pixelsToFloat32.js';
import { isPng, pngTruncation } from './pngTruncation.js';

/** Bytes of a Blob read to find its size: enough for a JPEG's metadata before its frame. */
const HEAD_BYTES = 256 * 1024;
/** Largest PNG (pixels) decoded in JavaScript rather than by the platform (between the measured 64², where JavaScript wins, and 224², where it loses). */
const JS_PNG_MAX_PIXELS = 128 * 128;

/** Options of {@link ImageDecoder}. */
export interface ImageDecoderOptions {
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
 * Decodes PNG/JPEG/WebP bytes with the platform (`createImageBitmap` and an
 * `OffscreenCanvas`), in a page or in a worker, into normalised Float32Array
 * pixels. Bytes (not a Blob) of an 8-bit grey or RGB PNG kept at its own size are
 * decoded in JavaScript on the calling thread instead (fast-png; same values, a
 * third of the CPU). Colours are read unconverted (`colorSpaceConversion: 'none'`) so the
 * values are the file's. One canvas is reused per decoder.
 *
 * @example
 * const decoder = new ImageDecoder({ channels: 1 });
 * const { data, width, height } = await decoder.decode(await (await fetch(url)).blob());
 */
export class ImageDecoder {
  private readonly channels: 1 | 3;
  private readonly width: number | undefined;
  private readonly height: number | undefined;
  private readonly maxPixels: number;
  private canvas: OffscreenCanvas | undefined;
  private ctx: OffscreenCanvasRenderingContext2D | undefined;

  constructor(options: ImageDecoderOptions = {}) {
    const { channels = 1, width, height, maxPixels = 2 ** 26 } = optionsBag('options', options);
    if (typeof channels !== 'number') throw badType('channels', '1 or 3', channels);
    if (channels !== 1 && channels !== 3) throw badRange('channels', '1 or 3', channels);
    this.channels = channels;
    this.width = width === undefined ? undefined : positiveInt('width', width);
    this.height = height === undefined ? undefined : positiveInt('height', height);
    this.maxPixels = positiveInt('maxPixels', maxPixels);
  }

  /**
   * Decode `bytes` (a Blob or raw bytes) into normalised pixels. The image's size is
   * checked against `maxPixels` from its header first, and it is decoded at the target
   * size where the platform can (`createImageBitmap`'s resize options).
   * @param name - names the image in errors (e.g. its URL)
   */
  async decode(bytes: Blob | ArrayBuffer | Uint8Array, name?: string): Promise<DecodedImage> {
    const label = name ?? `of ${bytes instanceof Blob ? bytes.size : bytes.byteLength} bytes`;
    const head =
      bytes instanceof Blob
        ? new Uint8Array(await bytes.slice(0, HEAD_BYTES).arrayBuffer())
        : bytes instanceof Uint8Array
          ? bytes
          : new Uint8Array(bytes);
    const size = imageSize(head);
    if (size) this.checkPixels(label, size.width, size.height);
    if (isPng(head)) {
      // A cut-off PNG must fail here: some engines' createImageBitmap draws it blank.
      const whole =
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
        const decoded = decodePlainPng(head, this.channels);
        if (decoded) return decoded;
      } catch {
        // corrupt: the platform decoder below says so with its own error
      }
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
      const data = pixelsToFloat32(rgba, 4, this.channels, width * height);
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
