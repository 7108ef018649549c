import type { DicomImageInfo } from './imageInfo.js';

/** Decoded pixel samples of one frame, interleaved, in the type the header describes. */
export type DicomSamples =
  | Uint8Array
  | Int8Array
  | Uint16Array
  | Int16Array
  | Uint32Array
  | Int32Array;

/**
 * `bytes` (little endian unless told) as the typed array of samples the header
 * describes: Uint8/Int8, Uint16/Int16 or Uint32/Int32 by `bitsAllocated` and
 * `pixelRepresentation`. Copies only when the bytes are misaligned or big endian.
 */
export function samplesOf(
  bytes: Uint8Array,
  info: DicomImageInfo,
  bigEndian = false,
): DicomSamples {
  const signed = info.pixelRepresentation === 1;
  const size = info.bitsAllocated >>> 3;
  if (size === 1) {
    return signed ? new Int8Array(bytes.buffer, bytes.byteOffset, bytes.length) : bytes;
  }
  const count = Math.floor(bytes.length / size);
  let src = bytes;
  if (bigEndian) {
    src = new Uint8Array(count * size);
    for (let i = 0; i < count * size; i += size) {
      for (let b = 0; b < size; b++) src[i + b] = bytes[i + size - 1 - b] as number;
    }
  } else if (bytes.byteOffset % size !== 0) {
    src = bytes.slice(0, count * size);
  }
  if (size === 2) {
    return signed
      ? new Int16Array(src.buffer, src.byteOffset, count)
      : new Uint16Array(src.buffer, src.byteOffset, count);
  }
  return signed
    ? new Int32Array(src.buffer, src.byteOffset, count)
    : new Uint32Array(src.buffer, src.byteOffset, count);
}
