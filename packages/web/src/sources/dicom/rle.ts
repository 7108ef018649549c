import { checkUntrustedSize } from '@medfusion/core/internal';
import { DicomError } from './DicomError.js';
import { type DicomImageInfo, frameBytes } from './imageInfo.js';
import { claimedPixels } from './pixelLimits.js';

/**
 * Decode one RLE Lossless frame (PS3.5 Annex G): a 64-byte header of up to 15
 * segment offsets, each segment a PackBits stream of one byte plane (most
 * significant byte first, one plane per sample). Writes the frame's bytes
 * little endian and interleaved, as native pixel data would be, into `out`
 * ({@link frameBytes} long; every byte is written, or it throws) and
 * returns it.
 */
export function decodeRle(frame: Uint8Array, info: DicomImageInfo, out: Uint8Array): Uint8Array {
  const view = new DataView(frame.buffer, frame.byteOffset, frame.byteLength);
  if (frame.length < 64) throw new DicomError('DICOM_FORMAT', 'RLE frame shorter than its header');
  const segments = view.getUint32(0, true);
  const bytesPer = info.bitsAllocated >>> 3;
  const spp = info.samplesPerPixel;
  if (segments !== bytesPer * spp) {
    throw new DicomError(
      'DICOM_FORMAT',
      `RLE frame has ${segments} segments, expected ${bytesPer * spp} (${info.bitsAllocated} bits x ${spp} samples)`,
    );
  }
  const pixels = info.rows * info.columns;
  if (out.length !== frameBytes(info)) {
    throw new RangeError(`out holds ${out.length} bytes, the frame ${frameBytes(info)}`);
  }
  const stride = spp * bytesPer;
  for (let s = 0; s < segments; s++) {
    const start = view.getUint32(4 + 4 * s, true);
    const end = s + 1 < segments ? view.getUint32(8 + 4 * s, true) : frame.length;
    const sample = Math.floor(s / bytesPer);
    // segment 0 of a sample is its most significant byte: little endian puts it last
    let o = sample * bytesPer + (bytesPer - 1 - (s % bytesPer));
    let written = 0;
    let p = start;
    while (p < end && written < pixels) {
      const n = ((frame[p++] as number) << 24) >> 24;
      if (n >= 0) {
        for (let k = 0; k <= n && written < pixels; k++, written++, o += stride) {
          out[o] = frame[p + k] as number;
        }
        p += n + 1;
      } else if (n !== -128) {
        const v = frame[p++] as number;
        for (let k = 0; k < 1 - n && written < pixels; k++, written++, o += stride) out[o] = v;
      }
    }
    if (written < pixels) {
      throw new DicomError('DICOM_FORMAT', `RLE segment ${s} holds ${written} of ${pixels} bytes`);
    }
  }
  return out;
}

/**
 * Bytes one decoded RLE frame of `info` takes, once checked against what `frame` can
 * expand to (a `SizeLimitError` naming `where` otherwise): PackBits turns at best 2 bytes
 * into 128, so the segments after the 64-byte header hold at most 64 times their length.
 * Call before allocating the output.
 */
export function checkedRleFrameBytes(
  frame: Uint8Array,
  info: DicomImageInfo,
  where = 'an RLE frame',
): number {
  return checkUntrustedSize(`${where} (${claimedPixels(info, 1)})`, frameBytes(info), {
    actual: 64 * Math.max(0, frame.length - 64),
    actualName: `what ${frame.length} bytes of RLE can expand to`,
  });
}
