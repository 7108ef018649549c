/**
 * Size checks on what a DICOM header claims (NumberOfFrames, Rows, Columns, Samples per
 * Pixel, Bits Allocated), made before any loop over the frames or any buffer of the claimed
 * size: a claim over what the bytes hold or over {@link MAX_DECODED_SAMPLES} is a
 * `SizeLimitError` (`SIZE_LIMIT`) naming the file and the claim.
 */
import { checkUntrustedSize } from '@medfusion/core/internal';
import { type DicomImageInfo, frameBytes } from './imageInfo.js';
import { isNativeSyntax, TransferSyntax } from './transferSyntax.js';

/**
 * Most float samples one decode may produce (frames × rows × columns × samples per
 * pixel): 2^30, a 4 GiB `Float32Array`. A 512 × 512 CT of 4,096 slices fits.
 */
export const MAX_DECODED_SAMPLES = 2 ** 30;

/** The claim in words, with its raw numbers: `3 frames of 32 × 32 × 1 samples at 16 bits`. */
export function claimedPixels(info: DicomImageInfo, frames = info.numberOfFrames): string {
  return `${frames} frame${frames === 1 ? '' : 's'} of ${info.rows} × ${info.columns} × ${info.samplesPerPixel} samples at ${info.bitsAllocated} bits`;
}

/**
 * Throw unless `frames` frames of `info` decode to at most {@link MAX_DECODED_SAMPLES}
 * floats. Call before allocating the output.
 */
export function checkDecodedSize(info: DicomImageInfo, frames: number, where: string): void {
  checkUntrustedSize(
    `${where} (${claimedPixels(info, frames)})`,
    frames * info.rows * info.columns * info.samplesPerPixel,
    { cap: MAX_DECODED_SAMPLES, capName: 'the decode limit', unit: 'samples' },
  );
}

/**
 * Throw unless `available` bytes of native (uncompressed) pixels hold `frames` frames of
 * `info`. Call before reading or looping over the frames.
 */
export function checkNativePixels(
  info: DicomImageInfo,
  frames: number,
  available: number,
  where: string,
): void {
  checkUntrustedSize(`${where} (${claimedPixels(info, frames)})`, frames * frameBytes(info), {
    actual: available,
    actualName: 'its Pixel Data',
  });
}

/**
 * Throw unless encapsulated Pixel Data of `fragments` fragments can hold the frames the
 * header claims: a fragment never holds data of two frames (PS3.5 A.4), so a frame
 * needs at least one.
 */
export function checkFragmentCount(info: DicomImageInfo, fragments: number, where: string): void {
  checkUntrustedSize(`NumberOfFrames of ${where} (${info.numberOfFrames})`, info.numberOfFrames, {
    actual: fragments,
    actualName: 'its Pixel Data fragments',
    unit: 'frames',
  });
}

/**
 * Throw unless a file of `fileSize` bytes can hold the `frames` frames its header claims
 * (before the Pixel Data is read: `DicomSource` learns frame counts from a file's first
 * bytes). A native frame takes its full size, an encapsulated one at least an 8-byte item
 * header; a Deflated file is checked once inflated. `info` is undefined when the header
 * lacks image tags (then only the count is checked against the file).
 */
export function checkFramesInFile(
  info: DicomImageInfo | undefined,
  frames: number,
  transferSyntax: string,
  fileSize: number,
  where: string,
): void {
  if (transferSyntax === TransferSyntax.DeflatedExplicitVRLittleEndian) return;
  const native = isNativeSyntax(transferSyntax);
  const perFrame = native ? (info ? frameBytes(info) : 1) : 8;
  const claim = info ? claimedPixels(info, frames) : `NumberOfFrames ${frames}`;
  const what = native ? claim : `${claim}, encapsulated: at least 8 bytes a frame`;
  checkUntrustedSize(`${where} (${what})`, frames * perFrame, {
    actual: fileSize,
    actualName: 'the whole file',
  });
}
