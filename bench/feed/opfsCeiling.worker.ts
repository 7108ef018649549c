// The OPFS ceiling of `pnpm bench feed`: the same bytes as the disk tier's samples in one flat
// file, read sample by sample (shuffled) into one batch buffer with a sync access handle.
import { BATCH, SAMPLE_BYTES } from './types.js';

const NAME = 'bench-feed-ceiling.bin';

async function handle(): Promise<FileSystemSyncAccessHandle> {
  const root = await navigator.storage.getDirectory();
  const file = await root.getFileHandle(NAME, { create: true });
  return file.createSyncAccessHandle();
}

self.onmessage = async (
  e: MessageEvent<{ cmd: 'fill'; n: number } | { cmd: 'read'; order: Uint32Array }>,
) => {
  const msg = e.data;
  const h = await handle();
  try {
    if (msg.cmd === 'fill') {
      const sample = new Uint8Array(SAMPLE_BYTES);
      h.truncate(0);
      for (let i = 0; i < msg.n; i++) {
        sample.fill(i & 255);
        h.write(sample, { at: i * SAMPLE_BYTES });
      }
      h.flush();
      postMessage({ ms: 0 });
      return;
    }
    const batch = new Uint8Array(BATCH * SAMPLE_BYTES);
    const t0 = performance.now();
    let k = 0;
    for (const i of msg.order) {
      const got = h.read(batch.subarray(k * SAMPLE_BYTES, (k + 1) * SAMPLE_BYTES), {
        at: i * SAMPLE_BYTES,
      });
      if (got !== SAMPLE_BYTES) throw new Error(`short read: ${got}`);
      k = (k + 1) % BATCH;
    }
    postMessage({ ms: performance.now() - t0 });
  } finally {
    h.close();
  }
};
