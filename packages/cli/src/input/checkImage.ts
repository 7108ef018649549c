import {
  checkDicom,
  checkJpeg,
  checkPng,
  type DicomInfo,
  type ImageKind,
  sniffImage,
} from './imageKind.js';

/** What checking one image file found. */
export interface ImageCheck {
  /** Kind by magic number. */
  kind: ImageKind;
  /** Width in pixels, when the header says. */
  width?: number;
  /** Height in pixels, when the header says. */
  height?: number;
  /** DICOM header fields (DICOM only). */
  dicom?: DicomInfo;
}

/**
 * Sniff and check one image's bytes (PNG/JPEG structure, DICOM header and pixel
 * data). Returns undefined when the bytes are not an image we pack; throws an
 * Error saying what is wrong when they are one but broken.
 */
export function checkImage(bytes: Uint8Array, keepTags: readonly string[]): ImageCheck | undefined {
  const kind = sniffImage(bytes);
  if (kind === undefined) return undefined;
  if (kind === 'png') return { kind, ...checkPng(bytes) };
  if (kind === 'jpg') return { kind, ...checkJpeg(bytes) };
  const dicom = checkDicom(bytes, keepTags);
  const check: ImageCheck = { kind, dicom };
  if (dicom.columns !== undefined) check.width = dicom.columns;
  if (dicom.rows !== undefined) check.height = dicom.rows;
  return check;
}
