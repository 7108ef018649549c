import {
  abortSignal,
  bool,
  deserializeError,
  func,
  nonEmptyString,
  object,
  positiveInt,
  rejectUnknownOptions,
  showValue,
  withDefault,
} from '@medfusion/core/internal';
import { allLocalFiles, checkDirectory, filesOf } from '../sources/dicom/localFiles.js';
import type { PackFilesOptions, PackFilesResult } from './packFilesOptions.js';
import type { PackRequest, PackWorkerMessage } from './packProtocol.js';

const KNOWN = [
  'files',
  'directory',
  'labels',
  'imageColumn',
  'labelColumn',
  'folderLabels',
  'dir',
  'replace',
  'targetShardBytes',
  'onProgress',
  'signal',
];

/**
 * Pack images a user picked or dropped (a `webkitdirectory` `FileList`, `File`s,
 * or a `FileSystemDirectoryHandle`), with an optional labels CSV, into WebDataset
 * tar shards, their sidecar indexes and `manifest.json` (written last) in an OPFS
 * directory: the format `medfusion pack` writes and {@link WebDatasetSource} reads
 * (open it with {@link opfsShards}, offline). The work runs in a Web Worker;
 * `onProgress` hears of it. Bad input rejects with a {@link PackFilesError} naming
 * the file or CSV row (`PACK_INPUT`), or the directory (`PACK_OUTPUT`), and leaves
 * no data set behind; `signal` stops it the same way.
 *
 * @example
 * const packed = await packFiles({
 *   files: input.files, // <input type=file webkitdirectory>
 *   labels: csvFile,
 *   dir: 'my-data',
 *   onProgress: (p) => console.log(p.phase, p.done, p.total),
 * });
 * const ds = await WebDatasetSource.open(opfsShards(packed.dir));
 */
export async function packFiles(options: PackFilesOptions): Promise<PackFilesResult> {
  object('options', options);
  rejectUnknownOptions(options, KNOWN, 'packFiles');
  const dir = nonEmptyString('dir', options.dir);
  if (dir.split('/').some((p) => p === '.' || p === '..')) {
    throw new RangeError(`dir must be a path below the OPFS root, got ${showValue(dir)}`);
  }
  if (options.files !== undefined) filesOf(options.files);
  if (options.directory !== undefined) checkDirectory(options.directory);
  if ((options.files === undefined) === (options.directory === undefined)) {
    throw new TypeError('packFiles needs files or directory (one of them)');
  }
  const labels = options.labels;
  if (labels !== undefined && typeof labels !== 'string' && !(labels instanceof Blob)) {
    throw new TypeError(
      `labels must be a File, a Blob or the CSV's text, got ${showValue(labels)}`,
    );
  }
  const targetShardBytes = withDefault(
    'targetShardBytes',
    options.targetShardBytes,
    64 * 1024 * 1024,
    positiveInt,
  );
  if (options.onProgress !== undefined) func('onProgress', options.onProgress);
  const signal = withDefault('signal', options.signal, undefined, abortSignal);
  const job = {
    imageColumn: withDefault('imageColumn', options.imageColumn, 'image', nonEmptyString),
    labelColumn: withDefault('labelColumn', options.labelColumn, 'label', nonEmptyString),
    folderLabels: withDefault('folderLabels', options.folderLabels, false, bool),
    dir,
    replace: withDefault('replace', options.replace, false, bool),
    targetShardBytes,
  };
  signal?.throwIfAborted();
  const files =
    options.files !== undefined ? await allLocalFiles({ files: options.files }) : undefined;
  const request: PackRequest = {
    type: 'pack',
    job,
  };
  if (files) request.files = files;
  if (options.directory !== undefined) request.directory = options.directory;
  if (labels !== undefined) {
    const name = labels instanceof File ? labels.webkitRelativePath || labels.name : 'labels CSV';
    request.labels = { name, text: labels };
  }
  const worker = new Worker(new URL('./pack.worker.js', import.meta.url), {
    type: 'module',
    name: `medfusion-pack:${dir}`,
  });
  try {
    return await new Promise<PackFilesResult>((resolve, reject) => {
      const onAbort = () => worker.postMessage({ type: 'abort' } satisfies PackRequest);
      signal?.addEventListener('abort', onAbort, { once: true });
      const settle = () => signal?.removeEventListener('abort', onAbort);
      worker.addEventListener('message', (event: MessageEvent<PackWorkerMessage>) => {
        const m = event.data;
        if (m.type === 'progress') options.onProgress?.(m.progress);
        else if (m.type === 'done') {
          settle();
          resolve(m.result);
        } else {
          settle();
          // An abort reports the caller's own reason, as every AbortSignal does.
          reject(signal?.aborted ? signal.reason : deserializeError(m.error));
        }
      });
      worker.addEventListener('error', (event) => {
        event.preventDefault();
        settle();
        reject(new Error(`the packing worker failed: ${event.message ?? 'error'}`));
      });
      try {
        worker.postMessage(request);
      } catch (error) {
        const directory = request.directory;
        if (!(error instanceof DOMException && error.name === 'DataCloneError') || !directory) {
          settle();
          throw error;
        }
        // WebKit cannot send a FileSystemDirectoryHandle to a worker: walk the folder here and
        // send its files (the worker walks it itself where it can).
        delete request.directory;
        allLocalFiles({ directory }, signal).then(
          (found) => {
            request.files = found;
            worker.postMessage(request);
          },
          (walkError: unknown) => {
            settle();
            reject(walkError);
          },
        );
      }
    });
  } finally {
    worker.terminate();
  }
}
