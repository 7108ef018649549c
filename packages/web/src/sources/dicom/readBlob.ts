import { raceAbort, throwIfAborted } from '@medfusion/core/internal';
import { DicomError } from './DicomError.js';

/**
 * A local file that cannot be read (moved, deleted, or changed since it was
 * chosen: the platform's `NotFoundError` / `NotReadableError`) as a
 * `DICOM_FILE_UNREADABLE` {@link DicomError} naming its relative `path`.
 */
export function unreadableFile(path: string, error: unknown): DicomError {
  const why = (error as { name?: unknown } | null)?.name;
  return new DicomError(
    'DICOM_FILE_UNREADABLE',
    `${path} cannot be read${typeof why === 'string' ? ` (${why})` : ''}: it was moved, deleted or changed since it was chosen`,
    { cause: error },
  );
}

/**
 * The bytes of `blob` (a local file or a slice of one), read once: there is no
 * HTTP here, so no retry. A failed read throws {@link unreadableFile}; aborting
 * `signal` rejects with its reason (the read itself cannot be stopped).
 */
export async function readBlob(
  blob: Blob,
  path: string,
  signal?: AbortSignal,
): Promise<Uint8Array> {
  throwIfAborted(signal);
  let buffer: ArrayBuffer;
  try {
    buffer = await raceAbort(blob.arrayBuffer(), signal);
  } catch (error) {
    if (signal?.aborted) throw error;
    throw unreadableFile(path, error);
  }
  return new Uint8Array(buffer);
}
