import { MedFusionError } from '@medfusion/core';
import { registerErrorClass } from '@medfusion/core/internal';

/** The `code` of a {@link DicomError}. */
export type DicomErrorCode =
  | 'DICOM_FORMAT'
  | 'DICOM_UNSUPPORTED'
  | 'DICOM_MISSING_TAG'
  | 'DICOM_FILE_UNREADABLE';

/**
 * A DICOM object cannot be turned into a sample. `code` says why:
 * `DICOM_FORMAT` (not a DICOM Part 10 file, a truncated frame, a codec that
 * failed), `DICOM_UNSUPPORTED` (a transfer syntax or pixel layout no codec
 * handles; the message names the transfer syntax UID), `DICOM_MISSING_TAG` (a
 * tag the options mark `required` is absent; the message names the tag, never
 * a value), `DICOM_FILE_UNREADABLE` (a local file of `DicomSource`'s `files` or
 * `directory` could not be read: moved, deleted or changed since it was chosen; the
 * message names its relative path, `cause` is the platform's error). Messages never
 * carry tag values, so patient data cannot leak into logs.
 */
export class DicomError extends MedFusionError<DicomErrorCode> {
  constructor(
    code: DicomErrorCode,
    message: string,
    options?: { index?: number; cause?: unknown },
  ) {
    super(code, message, options);
    this.name = 'DicomError';
  }
}
registerErrorClass('DicomError', DicomError);
