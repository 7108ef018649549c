/**
 * The DICOM transfer syntaxes `DicomSource` and `DicomWebSource` decode, by UID
 * (PS3.5 §10 and Annex A). Native syntaxes are read directly; the others go
 * through a {@link DicomCodec}.
 */
export const TransferSyntax = {
  /** Implicit VR Little Endian (the default syntax). */
  ImplicitVRLittleEndian: '1.2.840.10008.1.2',
  /** Explicit VR Little Endian. */
  ExplicitVRLittleEndian: '1.2.840.10008.1.2.1',
  /** Deflated Explicit VR Little Endian (the whole data set is deflated). */
  DeflatedExplicitVRLittleEndian: '1.2.840.10008.1.2.1.99',
  /** Explicit VR Big Endian (retired, still read). */
  ExplicitVRBigEndian: '1.2.840.10008.1.2.2',
  /** RLE Lossless. */
  RLELossless: '1.2.840.10008.1.2.5',
  /** JPEG Baseline (process 1), 8-bit lossy. */
  JPEGBaseline: '1.2.840.10008.1.2.4.50',
  /** JPEG Lossless, non-hierarchical (process 14). */
  JPEGLossless: '1.2.840.10008.1.2.4.57',
  /** JPEG Lossless, non-hierarchical, first-order prediction (process 14, selection value 1). */
  JPEGLosslessSV1: '1.2.840.10008.1.2.4.70',
  /** JPEG-LS Lossless. */
  JPEGLSLossless: '1.2.840.10008.1.2.4.80',
  /** JPEG-LS near-lossless. */
  JPEGLSNearLossless: '1.2.840.10008.1.2.4.81',
  /** JPEG 2000 (lossless only). */
  JPEG2000Lossless: '1.2.840.10008.1.2.4.90',
  /** JPEG 2000 (lossless or lossy). */
  JPEG2000: '1.2.840.10008.1.2.4.91',
} as const;

/** The UID of one of the {@link TransferSyntax} entries. */
export type TransferSyntaxUid = (typeof TransferSyntax)[keyof typeof TransferSyntax];

const names = new Map<string, string>(Object.entries(TransferSyntax).map(([k, v]) => [v, k]));

/** Whether `uid` stores pixels uncompressed (read without a codec). */
export function isNativeSyntax(uid: string): boolean {
  return (
    uid === TransferSyntax.ImplicitVRLittleEndian ||
    uid === TransferSyntax.ExplicitVRLittleEndian ||
    uid === TransferSyntax.DeflatedExplicitVRLittleEndian ||
    uid === TransferSyntax.ExplicitVRBigEndian
  );
}

/** `uid` with its name when we know it, for messages: `1.2.840.10008.1.2.5 (RLELossless)`. */
export function describeSyntax(uid: string): string {
  const name = names.get(uid);
  return name ? `${uid} (${name})` : uid;
}
