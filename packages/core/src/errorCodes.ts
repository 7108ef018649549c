/**
 * Every `code` a MedFusion error carries, in one list (core's and web's: a code
 * is just a string, so core can name web's too). The type {@link ErrorCode} is
 * derived from it; the error registry uses it to tell our codes from foreign ones.
 */
export const ERROR_CODES = [
  // core
  /** An operation was aborted (AbortError). */
  'ABORTED',
  /** An augmentation threw; the epoch ends (AugmentError). */
  'AUGMENT_FAILED',
  /** Bytes given to decodeSample are not a valid encoding (SampleCodecError). */
  'BAD_SAMPLE_BYTES',
  /** An operation on something already closed (ClosedError). */
  'CLOSED',
  /** collate: a label is not a number (CollateError). */
  'COLLATE_LABEL',
  /** collate: a sample's fields differ from the batch's first sample (CollateError). */
  'COLLATE_MISMATCH',
  /** collate: a field's shape differs from the batch's first sample (CollateError). */
  'COLLATE_SHAPE',
  /** collate: a field holds a value collate cannot batch (CollateError). */
  'COLLATE_TYPE',
  /** A DataLoader was iterated twice at once. */
  'LOADER_BUSY',
  /** Loading a sample failed (LoadError, SampleFailedError, WorkerLoadError). */
  'LOAD_FAILED',
  /** A load did not settle in time (LoadTimeoutError). */
  'LOAD_TIMEOUT',
  /** core's createCachedDataset was given cacheDir without a store. */
  'NO_STORE',
  /** The sample is in quarantine (QuarantinedError). */
  'QUARANTINED',
  /** Every retry failed (RetryExhaustedError). */
  'RETRIES_EXHAUSTED',
  // web: storage (StoreError)
  /** The browser refused the write even after evicting (QuotaExceededError). */
  'QUOTA_EXCEEDED',
  /** One entry is larger than the store's byte budget. */
  'ENTRY_TOO_LARGE',
  /** The storage API is missing here (no OPFS, no IndexedDB). */
  'STORE_UNAVAILABLE',
  /** The store's worker stopped (terminated or crashed). */
  'STORE_WORKER_GONE',
  /** A store call did not settle within the store's `callTimeoutMs`. */
  'STORE_TIMEOUT',
  /** Any other storage failure; `cause` holds the platform error. */
  'STORE_FAILED',
  /** A store holding encrypted records was opened without its `encryptionKey`. */
  'ENCRYPTION_KEY_REQUIRED',
  // web: workers
  /** A loader's worker died twice, or workers cannot start (WorkerCrashedError). */
  'WORKER_CRASHED',
  /** Watched work made no progress within its bound (StallError). */
  'STALLED',
  // web: remote reads and sources
  /** An HTTP status a request cannot succeed with, or a 5xx (RemoteReadError). */
  'HTTP_ERROR',
  /** No response (RemoteReadError). */
  'NETWORK_ERROR',
  /** Fewer bytes than asked (RemoteReadError). */
  'SHORT_READ',
  /** A response that does not match the request (RemoteReadError). */
  'BAD_RESPONSE',
  /** The object changed while it was read (ObjectChangedError). */
  'OBJECT_CHANGED',
  /** A shard's sha256 differs from its manifest's (ChecksumMismatchError). */
  'CHECKSUM_MISMATCH',
  /** A shard, index or table is malformed (SourceFormatError). */
  'BAD_FORMAT',
  /** A CSV manifest is malformed (CsvFormatError). */
  'CSV_FORMAT',
  /** An image could not be decoded (ImageDecodeError). */
  'IMAGE_DECODE',
  /** A URL from a data file is outside the urlPolicy (UrlNotAllowedError). */
  'URL_NOT_ALLOWED',
  /** A server stalled before the headers or mid-body past its timeout (RequestTimeoutError). */
  'REQUEST_TIMEOUT',
  /** A server answered a Range request with the whole object (RemoteReadError). */
  'RANGE_NOT_SUPPORTED',
  /** A `signUrl` hook threw, timed out or returned no URL (SignUrlError). */
  'SIGN_URL_FAILED',
  /** A freshly signed URL was refused as expired again: no more signing (RemoteReadError). */
  'URL_EXPIRED',
  /** A size read from untrusted bytes exceeds the real object or a cap (SizeLimitError). */
  'SIZE_LIMIT',
  /** A Parquet column chunk uses a compression codec with no decompressor (UnsupportedCodecError). */
  'UNSUPPORTED_CODEC',
  // web: DICOM and DICOMweb (DicomError)
  /** Not a DICOM Part 10 file, a truncated frame, or a codec that failed. */
  'DICOM_FORMAT',
  /** A transfer syntax or pixel layout that no codec handles. */
  'DICOM_UNSUPPORTED',
  /** A tag the options mark required is absent. */
  'DICOM_MISSING_TAG',
  /** A local file (DicomSource `files`/`directory`) cannot be read: moved, deleted or changed. */
  'DICOM_FILE_UNREADABLE',
  /** `medfusion pack` (PackError) or web's `packFiles` (PackFilesError): an input file or CSV row cannot be packed. */
  'PACK_INPUT',
  /** `medfusion pack` (PackError) or web's `packFiles` (PackFilesError): the output folder cannot take the data set. */
  'PACK_OUTPUT',
  /** `medfusion verify`: a shard, index or sample fails a check (PackError). */
  'VERIFY_FAILED',
] as const;

/** The code of a MedFusion error: one of {@link ERROR_CODES}. Branch on it. */
export type ErrorCode = (typeof ERROR_CODES)[number];

const known: ReadonlySet<string> = new Set(ERROR_CODES);

/** True when `value` is one of our {@link ErrorCode}s. */
export function isErrorCode(value: unknown): value is ErrorCode {
  return typeof value === 'string' && known.has(value);
}
