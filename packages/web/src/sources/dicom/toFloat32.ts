import { DicomError } from './DicomError.js';
import type { DicomImageInfo } from './imageInfo.js';
import type { DicomSamples } from './samples.js';

/** A VOI window (PS3.3 C.11.2.1.2): values map linearly to [0, 1] across it. */
export interface DicomWindow {
  /** Window Center, in rescaled units (e.g. Hounsfield units for CT). */
  center: number;
  /** Window Width, at least 1. */
  width: number;
}

/** How samples become floats (the part of the decode options the pipeline uses). */
export interface PixelOptions {
  /** `'file'`, a given window, or undefined for none. */
  window: 'file' | DicomWindow | undefined;
  /** Convert YBR_FULL to RGB (native and RLE data; the JPEG codecs already output RGB). */
  ybrToRgb: boolean;
}

/**
 * Write one frame's samples as floats into `out` from `offset`, `[H, W, C]`
 * order: bits above Bits Stored masked off (sign-extended when signed),
 * planar colour interleaved, Rescale Slope/Intercept applied to grey images,
 * the window applied when asked, MONOCHROME1 inverted.
 */
export function writeFrame(
  samples: DicomSamples,
  info: DicomImageInfo,
  options: PixelOptions,
  out: Float32Array,
  offset: number,
  where: string,
): void {
  const n = checkFrameSamples(samples, info, where);
  if (info.samplesPerPixel === 3) {
    const planar = info.planarConfiguration === 1 && options.ybrToRgb;
    const plane = info.rows * info.columns;
    for (let p = 0; p < plane; p++) {
      for (let c = 0; c < 3; c++) {
        out[offset + p * 3 + c] = samples[planar ? c * plane + p : p * 3 + c] as number;
      }
    }
    if (options.ybrToRgb && info.photometricInterpretation === 'YBR_FULL') {
      for (let k = offset; k < offset + n; k += 3) {
        const y = out[k] as number;
        const cb = (out[k + 1] as number) - 128;
        const cr = (out[k + 2] as number) - 128;
        out[k] = y + 1.402 * cr;
        out[k + 1] = y - 0.344136 * cb - 0.714136 * cr;
        out[k + 2] = y + 1.772 * cb;
      }
    }
    return;
  }
  writeGrey(samples, 0, n, greyMapping(info, options, where), out, offset);
}

/** The samples a frame of `info` holds; a `DICOM_FORMAT` error when `samples` has fewer. */
export function checkFrameSamples(
  samples: DicomSamples,
  info: DicomImageInfo,
  where: string,
): number {
  const n = info.rows * info.columns * info.samplesPerPixel;
  if (samples.length < n) {
    throw new DicomError('DICOM_FORMAT', `${where}: frame holds ${samples.length} of ${n} samples`);
  }
  return n;
}

/** How a grey frame's stored samples become floats: computed once per frame by {@link greyMapping}. */
export interface GreyMapping {
  readonly signed: boolean;
  readonly shift: number;
  readonly mask: number;
  readonly padded: boolean;
  readonly slope: number;
  readonly intercept: number;
  readonly invert: boolean;
  /** Without a window, MONOCHROME1's mirror point (the rescaled range's ends summed). */
  readonly flip: number;
  readonly win: DicomWindow | undefined;
  readonly winLow: number;
  readonly winHigh: number;
}

/** The mapping of a grey frame's samples (masking, rescale, window, MONOCHROME1) for {@link writeGrey}. */
export function greyMapping(
  info: DicomImageInfo,
  options: PixelOptions,
  where: string,
): GreyMapping {
  const signed = info.pixelRepresentation === 1;
  const bits = info.bitsStored;
  const mask = bits >= 32 ? 0xffffffff : 2 ** bits - 1;
  const slope = info.rescaleSlope;
  const intercept = info.rescaleIntercept;
  const win = resolveWindow(options.window, info, where);
  // The rescaled range of representable values, around which MONOCHROME1 inverts without a window.
  const lo = (signed ? -(2 ** (bits - 1)) : 0) * slope + intercept;
  const hi = (signed ? 2 ** (bits - 1) - 1 : mask) * slope + intercept;
  return {
    signed,
    shift: 32 - bits,
    mask,
    padded: bits < info.bitsAllocated,
    slope,
    intercept,
    invert: info.photometricInterpretation === 'MONOCHROME1',
    flip: Math.min(lo, hi) + Math.max(lo, hi),
    win,
    winLow: win ? win.center - 0.5 - (win.width - 1) / 2 : 0,
    winHigh: win ? win.center - 0.5 + (win.width - 1) / 2 : 0,
  };
}

/**
 * Write grey samples `[from, to)` of `samples` as floats into `out` from `offset` by `m`:
 * the one loop that applies the rescale and window, whole frames ({@link writeFrame}) or
 * rows (the resized path).
 */
export function writeGrey(
  samples: DicomSamples,
  from: number,
  to: number,
  m: GreyMapping,
  out: Float32Array,
  offset: number,
): void {
  const { signed, shift, mask, padded, slope, intercept, invert, flip, win, winLow, winHigh } = m;
  const center = win ? win.center - 0.5 : 0;
  const span = win ? win.width - 1 : 1;
  for (let k = from, o = offset; k < to; k++, o++) {
    let v = samples[k] as number;
    if (padded) v = signed ? (v << shift) >> shift : v & mask;
    let f = v * slope + intercept;
    if (win) {
      f = f <= winLow ? 0 : f > winHigh ? 1 : (f - center) / span + 0.5;
      if (invert) f = 1 - f;
    } else if (invert) f = flip - f;
    out[o] = f;
  }
}

function resolveWindow(
  option: PixelOptions['window'],
  info: DicomImageInfo,
  where: string,
): DicomWindow | undefined {
  if (option === undefined) return undefined;
  if (option !== 'file') return option;
  if (info.windowCenter === undefined || info.windowWidth === undefined) {
    throw new DicomError(
      'DICOM_MISSING_TAG',
      `${where}: window is 'file' but the object has no WindowCenter/WindowWidth`,
    );
  }
  return { center: info.windowCenter, width: Math.max(1, info.windowWidth) };
}
