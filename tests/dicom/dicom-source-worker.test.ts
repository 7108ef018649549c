// DicomSource inside a createWorkerExecutor pool: the WASM codecs load in module workers under
// Vite, pixels match the page's decode, buffers arrive as Float32Array.
import { createWorkerExecutor } from '@medfusion/web';
import { type DicomSample, DicomSource } from '@medfusion/web/dicom';
import { describe, expect, inject, it } from 'vitest';
import { COLD_START } from '../setup/coldStart.js';

const { files, filesUrl } = inject('dicom');

describe('DicomSource in Web Workers', () => {
  it('decodes every compressed syntax in a pool of 2 workers like in the page', async () => {
    const ct = files.filter((f) => f.image === 'ct16');
    const urls = ct.map((f) => `${filesUrl}${f.file}`);
    const executor = createWorkerExecutor<DicomSample>({
      worker: () =>
        new Worker(new URL('./fixtures/dicom.worker.ts', import.meta.url), {
          type: 'module',
          name: JSON.stringify(urls),
        }),
      poolSize: 2,
      ...COLD_START,
    });
    const page = await DicomSource.open({ urls, window: 'file' });
    try {
      const signal = new AbortController().signal;
      const fromWorkers = await Promise.all(urls.map((_, i) => executor.run(i, signal)));
      for (const [i, s] of fromWorkers.entries()) {
        expect(s.image.data).toBeInstanceOf(Float32Array);
        expect(s.image.shape).toEqual([64, 48, 1]);
        expect(s.image.data).toEqual((await page.get(i)).image.data);
      }
      expect(executor.stats().completed).toBeGreaterThanOrEqual(urls.length);
    } finally {
      await executor.close();
      page.close();
    }
  });
});
