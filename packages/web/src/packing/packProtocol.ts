import type { SerializedError } from '@medfusion/core/internal';
import type { LocalFile } from '../sources/dicom/localFiles.js';
import type { PackFilesResult, PackProgress } from './packFilesOptions.js';
import type { PackJob } from './packSamples.js';

/** What the page posts to the packing worker: one job, then perhaps an abort. */
export type PackRequest =
  | {
      type: 'pack';
      files?: LocalFile[];
      directory?: FileSystemDirectoryHandle;
      labels?: { name: string; text: Blob | string };
      job: Omit<PackJob, 'files' | 'labels'>;
    }
  | { type: 'abort' };

/** What the packing worker posts back. */
export type PackWorkerMessage =
  | { type: 'progress'; progress: PackProgress }
  | { type: 'done'; result: PackFilesResult }
  | { type: 'error'; error: SerializedError };
