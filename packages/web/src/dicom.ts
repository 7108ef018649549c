// @medfusion/web/dicom — DICOM files and DICOMweb servers as sources.
// A subpath of its own: the DICOM parser and the codecs (WASM, loaded on first use)
// stay out of the main entry's bundle for apps that do not read DICOM.

export type { DicomCodec } from './sources/dicom/codecs.js';
export type { DecodeContext } from './sources/dicom/DicomDecoder.js';
export { DicomDecoder } from './sources/dicom/DicomDecoder.js';
export type { DicomErrorCode } from './sources/dicom/DicomError.js';
export { DicomError } from './sources/dicom/DicomError.js';
export { DicomSource } from './sources/dicom/DicomSource.js';
export type {
  DicomDecodeOptions,
  DicomDecoderOptions,
  DicomImage,
  DicomSample,
  DicomSourceOptions,
} from './sources/dicom/dicomOptions.js';
export type { DicomTagName } from './sources/dicom/dicomTags.js';
export type { DicomImageInfo } from './sources/dicom/imageInfo.js';
export type { DicomSamples } from './sources/dicom/samples.js';
export type { DicomTagSpec } from './sources/dicom/tagFields.js';
export type { DicomWindow } from './sources/dicom/toFloat32.js';
export type { TransferSyntaxUid } from './sources/dicom/transferSyntax.js';
export { TransferSyntax } from './sources/dicom/transferSyntax.js';
export { DicomWebSource } from './sources/dicomweb/DicomWebSource.js';
export type {
  DicomWebInstance,
  DicomWebSourceOptions,
  DicomWebStats,
} from './sources/dicomweb/dicomWebOptions.js';
