import { sniffImage } from '@medfusion/core/internal';
import { convertPixels, newPixels } from './convertPixels.js';
import type { DecodedImage, ImageDtype, ImagePixels } from './DecodedImage.js';
import { YcbcrToRgb } from './ycbcrToRgb.js';

/** VideoFrame fields newer than the DOM types: EXIF orientation, where the engine reports it. */
interface OrientedFrame {
  rotation?: number;
  flip?: boolean;
}

/** Whether the platform decodes `type` with WebCodecs (asked once per type). */
const supported = new Map<string, Promise<boolean>>();
function decodes(type: string): Promise<boolean> {
  let p = supported.get(type);
  if (!p) {
    p = ImageDecoder.isTypeSupported(type).catch(() => false);
    supported.set(type, p);
  }
  return p;
}

/**
 * Decodes JPEG and PNG files at their own size with the platform's WebCodecs `ImageDecoder`
 * (Chromium; where it exists), reading the decoded frame out as it is with `VideoFrame.copyTo`
 * into a pooled buffer and writing the pixels the caller keeps in one pass. Against
 * `createImageBitmap` + canvas (the other path of the library's `ImageDecoder`) this skips the
 * `Blob` handed to the browser process and the canvas draw and readback: in `pnpm bench feed`
 * (224² RGB, Chromium 156, 2 workers) the codec alone went from ~1,200 to ~8,000 JPEGs and
 * from ~800–950 to ~3,000 PNGs a second.
 *
 * The values are the file's, as on the canvas path: colours unconverted
 * (`colorSpaceConversion: 'none'`), a JPEG's YCbCr frame (`I420`, `I444`) converted here with
 * libjpeg's arithmetic ({@link YcbcrToRgb}), not by `copyTo({ format: 'RGBA' })`, whose
 * conversion differs from libjpeg's by up to 93 in a channel; an RGB frame (`BGRX`, `RGBX`)
 * reordered in the same pass (`copyTo`'s own reordering cost ~2 ms a 224² frame). Anything else
 * is left to the caller (`undefined`): no `ImageDecoder`, another format, a frame with alpha
 * (the canvas path's premultiplied round trip is the library's behaviour there), an EXIF
 * rotation or flip, another YCbCr matrix or range, a frame the engine cannot copy, a decode
 * that fails (the caller's path then reports it as it always did).
 */
export class WebCodecsReader {
  /** copyTo targets not in use: one per decode in flight, reused. */
  private readonly free: Uint8Array[] = [];
  private readonly ycbcr = new YcbcrToRgb();
  private rgbRow = new Uint8Array(0);

  /**
   * `bytes` (whose first bytes are `head`, whose header says `size`, checked by the caller)
   * decoded to `channels` of `dtype`, or undefined (also for a frame of another size).
   */
  async decode<D extends ImageDtype>(
    bytes: Uint8Array | Blob,
    head: Uint8Array,
    size: { width: number; height: number },
    channels: 1 | 3,
    dtype: D,
  ): Promise<DecodedImage<D> | undefined> {
    const kind = sniffImage(head);
    const type = kind === 'jpg' ? 'image/jpeg' : kind === 'png' ? 'image/png' : undefined;
    if (!type || typeof ImageDecoder !== 'function' || !(await decodes(type))) return undefined;
    let decoder: ImageDecoder | undefined;
    let frame: VideoFrame | undefined;
    try {
      decoder = new ImageDecoder({
        data: bytes instanceof Blob ? bytes.stream() : (bytes as Uint8Array<ArrayBuffer>),
        type,
        colorSpaceConversion: 'none',
        preferAnimation: false,
      });
      // settled by close() below before the data is in, in some engines (Firefox: AbortError)
      decoder.completed.catch(() => {});
      decoder.tracks.ready.catch(() => {});
      const result = await decoder.decode();
      frame = result.image;
      if (!result.complete) return undefined;
      // Never more pixels than the header said (and the caller checked against maxPixels).
      if (frame.displayWidth !== size.width || frame.displayHeight !== size.height)
        return undefined;
      return await this.read(frame, kind === 'jpg', channels, dtype);
    } catch {
      return undefined;
    } finally {
      frame?.close();
      decoder?.close();
    }
  }

  private async read<D extends ImageDtype>(
    frame: VideoFrame,
    jpeg: boolean,
    channels: 1 | 3,
    dtype: D,
  ): Promise<DecodedImage<D> | undefined> {
    const rect = frame.visibleRect;
    const { rotation, flip } = frame as VideoFrame & OrientedFrame;
    if (!rect || rotation || flip) return undefined;
    const width = rect.width;
    const height = rect.height;
    if (frame.displayWidth !== width || frame.displayHeight !== height) return undefined;
    const format = frame.format;
    const space = frame.colorSpace;
    const ycbcr =
      jpeg &&
      (format === 'I420' || format === 'I444') &&
      (space.matrix === 'smpte170m' || space.matrix === 'bt470bg') &&
      space.fullRange === true;
    if (!ycbcr && format !== 'BGRX' && format !== 'RGBX') return undefined;
    const n = width * height;
    const scratch = this.take(frame.allocationSize());
    try {
      const planes = await frame.copyTo(scratch);
      if (!ycbcr) {
        // an opaque RGB frame, copied as it is (4 bytes a pixel), reordered in the one pass below
        const [plane] = planes;
        if (plane?.offset !== 0 || plane.stride !== width * 4) return undefined;
        const data = convertPixels(dtype, scratch, 4, channels, n, undefined, 0, format === 'BGRX');
        return { data, width, height, channels };
      }
      const data = newPixels(dtype, n * channels);
      const subsampled = format === 'I420';
      if (dtype === 'uint8' && channels === 3) {
        for (let y = 0; y < height; y++) {
          this.ycbcr.row(
            scratch,
            planes,
            width,
            height,
            subsampled,
            y,
            data as Uint8Array,
            y * width * 3,
          );
        }
      } else {
        if (this.rgbRow.length < width * 3) this.rgbRow = new Uint8Array(width * 3);
        const row = this.rgbRow;
        for (let y = 0; y < height; y++) {
          this.ycbcr.row(scratch, planes, width, height, subsampled, y, row, 0);
          convertPixels(
            dtype,
            row,
            3,
            channels,
            width,
            data as ImagePixels<D>,
            y * width * channels,
          );
        }
      }
      return { data, width, height, channels };
    } finally {
      this.free.push(scratch);
    }
  }

  /** A pooled buffer of at least `size` bytes (a smaller pooled one is dropped). */
  private take(size: number): Uint8Array {
    for (;;) {
      const held = this.free.pop();
      if (!held) return new Uint8Array(size);
      if (held.length >= size) return held;
    }
  }
}
