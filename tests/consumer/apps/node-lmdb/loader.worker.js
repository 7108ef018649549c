// Runs in each worker thread of the pool: "decodes" sample `index` off the main thread.
import { threadId } from 'node:worker_threads';
import { exposeLoader } from '@medfusion/node';

exposeLoader(async (index) => ({
  image: new Float32Array(64).fill(index / 100),
  tabular: new Float32Array([index, index % 7]),
  label: index % 3,
  thread: threadId,
}));
