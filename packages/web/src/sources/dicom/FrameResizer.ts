import { sampleBilinear } from '@medfusion/core/internal';
import type { DicomImageInfo } from './imageInfo.js';
import type { DicomSamples } from './samples.js';
import {
  checkFrameSamples,
  greyMapping,
  type PixelOptions,
  writeFrame,
  writeGrey,
} from './toFloat32.js';

/** A frame's output size: `height` × `width` pixels of `channels` values. */
export interface FrameTarget {
  height: number;
  width: number;
  channels: 1 | 3;
}

/**
 * Input coordinate of output pixel `i` when `from` pixels are resized to `to`: pixel centres
 * aligned (`(i + 0.5) · from / to − 0.5`), clamped to `[0, from − 1]`, as
 * `medfusion pack --decode --size` and browsers' image resizing map them.
 */
export function sourceCoordinate(i: number, from: number, to: number): number {
  return Math.min(from - 1, Math.max(0, ((i + 0.5) * from) / to - 0.5));
}

/**
 * Writes decoded frames at another size and channel count (DicomDecoder's `width`,
 * `height`, `channels`), one per decoder; its buffers are reused from frame to frame.
 *
 * Grey frames take one pass over the output: for each output row the (at most) two input
 * rows it reads are rescaled and windowed into two rows of scratch (by the same loop as
 * full-size frames), then each output pixel is the bilinear blend of its four neighbours
 * (core's `sampleBilinear`), written once per channel. No full-size float frame is made.
 * Colour frames are written full size into a reused buffer first, then resized. A `Uint8Array`
 * output (`dtype: 'uint8'`) takes each value rounded: a windowed grey value × 255, colour as is.
 */
export class FrameResizer {
  private rows = new Float32Array(0);
  private frame = new Float32Array(0);
  private columns = new Float64Array(0);
  private readonly px = new Float32Array(3);

  /** Write one frame's `samples` into `out` from `offset` at `target`'s size and channels. */
  write(
    samples: DicomSamples,
    info: DicomImageInfo,
    pixel: PixelOptions,
    target: FrameTarget,
    out: Float32Array | Uint8Array,
    offset: number,
    where: string,
  ): void {
    checkFrameSamples(samples, info, where);
    const { rows: h, columns: w } = info;
    const { height: oh, width: ow, channels } = target;
    if (this.columns.length < ow) this.columns = new Float64Array(ow);
    const xs = this.columns;
    for (let j = 0; j < ow; j++) xs[j] = sourceCoordinate(j, w, ow);
    if (info.samplesPerPixel === 1) {
      this.writeGreyFrame(samples, info, pixel, target, out, offset, where);
      return;
    }
    // Colour: full size once (planar and YBR handled there), then resized.
    const n = h * w * 3;
    if (this.frame.length < n) this.frame = new Float32Array(n);
    const full = this.frame;
    writeFrame(samples, info, pixel, full, 0, where);
    const px = this.px;
    for (let i = 0; i < oh; i++) {
      const sy = sourceCoordinate(i, h, oh);
      for (let j = 0, o = offset + i * ow * channels; j < ow; j++, o += channels) {
        if (channels === 3 && out instanceof Float32Array) {
          sampleBilinear(full, h, w, 3, xs[j] as number, sy, 0, out, o);
          continue;
        }
        sampleBilinear(full, h, w, 3, xs[j] as number, sy, 0, px, 0);
        if (channels === 3) {
          for (let c = 0; c < 3; c++) out[o + c] = Math.round(px[c] as number);
        } else {
          // ImageDecoder's luminance weights.
          const luma =
            0.299 * (px[0] as number) + 0.587 * (px[1] as number) + 0.114 * (px[2] as number);
          out[o] = out instanceof Uint8Array ? Math.round(luma) : luma;
        }
      }
    }
  }

  private writeGreyFrame(
    samples: DicomSamples,
    info: DicomImageInfo,
    pixel: PixelOptions,
    target: FrameTarget,
    out: Float32Array | Uint8Array,
    offset: number,
    where: string,
  ): void {
    const { rows: h, columns: w } = info;
    const { height: oh, width: ow, channels } = target;
    const px = this.px;
    const mapping = greyMapping(info, pixel, where);
    if (this.rows.length < 2 * w) this.rows = new Float32Array(2 * w);
    const rows = this.rows;
    const xs = this.columns;
    // Input rows held in the scratch's two slots (-1: none yet).
    let top = -1;
    let bottom = -1;
    for (let i = 0; i < oh; i++) {
      const sy = sourceCoordinate(i, h, oh);
      const y0 = Math.floor(sy);
      const y1 = Math.min(y0 + 1, h - 1);
      if (top !== y0) {
        if (bottom === y0) rows.copyWithin(0, w, 2 * w);
        else writeGrey(samples, y0 * w, y0 * w + w, mapping, rows, 0);
        top = y0;
        bottom = -1;
      }
      if (y1 !== y0 && bottom !== y1) {
        writeGrey(samples, y1 * w, y1 * w + w, mapping, rows, w);
        bottom = y1;
      }
      // Rows y0 and y0 + 1 are rows 0 and 1 of the scratch (row 0 only on the last input row,
      // where the blend's weight of the row below is 0 and sampleBilinear reads it as 0).
      const held = y1 === y0 ? 1 : 2;
      const fy = sy - y0;
      let o = offset + i * ow * channels;
      if (out instanceof Float32Array) {
        for (let j = 0; j < ow; j++, o += channels) {
          sampleBilinear(rows, held, w, 1, xs[j] as number, fy, 0, out, o);
          if (channels === 3) {
            const v = out[o] as number;
            out[o + 1] = v;
            out[o + 2] = v;
          }
        }
      } else {
        // uint8: a windowed value in [0, 1] as round(value × 255), the float path's value first
        for (let j = 0; j < ow; j++, o += channels) {
          sampleBilinear(rows, held, w, 1, xs[j] as number, fy, 0, px, 0);
          const u = Math.round((px[0] as number) * 255);
          out[o] = u;
          if (channels === 3) {
            out[o + 1] = u;
            out[o + 2] = u;
          }
        }
      }
    }
  }
}
