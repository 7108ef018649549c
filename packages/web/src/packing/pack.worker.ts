// The packing worker of packFiles: lists a picked folder, scans, checks and
// hashes the files, writes the shards into OPFS with sync access handles, and
// reports progress; the page only posts the job and relays what comes back.
import { serializeError } from '@medfusion/core/internal';
import { allLocalFiles, type LocalFile } from '../sources/dicom/localFiles.js';
import type { PackRequest, PackWorkerMessage } from './packProtocol.js';
import { type PackJob, packSamples } from './packSamples.js';

const controller = new AbortController();
const post = (m: PackWorkerMessage) => (self as unknown as Worker).postMessage(m);

self.addEventListener('message', async (event: MessageEvent<PackRequest>) => {
  const request = event.data;
  if (request.type === 'abort') {
    controller.abort(new DOMException('packing was aborted', 'AbortError'));
    return;
  }
  try {
    const files: LocalFile[] = request.directory
      ? await allLocalFiles({ directory: request.directory }, controller.signal)
      : (request.files as LocalFile[]);
    const job: PackJob = { ...request.job, files };
    if (request.labels !== undefined) {
      const { name, text } = request.labels;
      job.labels = { name, text: typeof text === 'string' ? text : await text.text() };
      // The labels CSV picked with the images is input, not a left-out file.
      if (typeof text !== 'string') {
        job.files = files.filter(
          (f) => f.blob !== text && !(f.path === name && f.blob.size === text.size),
        );
      }
    }
    const result = await packSamples(job, controller.signal, (progress) =>
      post({ type: 'progress', progress }),
    );
    post({ type: 'done', result });
  } catch (error) {
    post({ type: 'error', error: serializeError(error) });
  }
});
