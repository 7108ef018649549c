// DicomSource over local files inside a createWorkerExecutor pool: the page posts the same Files
// (or the directory handle) to each worker, which opens the same source; sample i is the same
// file in both places because the order is the relative paths', and pixels match the page's.
import { createWorkerExecutor } from '@medfusion/web';
import { type DicomSample, DicomSource, type DicomSourceOptions } from '@medfusion/web/dicom';
import { describe, expect, it } from 'vitest';
import { COLD_START } from '../setup/coldStart.js';
import { fixtureBytes, fixtureFile, opfsFolder } from './localFiles.js';

function pool(input: DicomSourceOptions) {
  return createWorkerExecutor<DicomSample>({
    worker: () => {
      const worker = new Worker(new URL('./fixtures/dicom-files.worker.ts', import.meta.url), {
        type: 'module',
      });
      worker.postMessage({ dicomFiles: input });
      return worker;
    },
    poolSize: 2,
    ...COLD_START,
  });
}

async function sameInWorkers(input: DicomSourceOptions): Promise<number> {
  const page = await DicomSource.open({ ...input, multiFrame: 'frames' });
  const executor = pool(input);
  try {
    const signal = new AbortController().signal;
    const indices = Array.from({ length: page.length }, (_, i) => i);
    const fromWorkers = await Promise.all(indices.map((i) => executor.run(i, signal)));
    for (const [i, s] of fromWorkers.entries()) {
      expect(s.image.data).toBeInstanceOf(Float32Array);
      expect(s.image.data).toEqual((await page.get(i)).image.data);
    }
    expect(executor.loadPhases()?.loads).toBe(page.length);
    return page.length;
  } finally {
    await executor.close();
    page.close();
  }
}

describe('DicomSource over local files in Web Workers', () => {
  it('Files posted to the workers give the page’s samples', async () => {
    const files = await Promise.all([
      fixtureFile('export/b/IM1', 'ct16-j2k.dcm'),
      fixtureFile('export/a/IM1', 'multi-rle.dcm'),
      fixtureFile('export/a/IM2', 'ct16-rle.dcm'),
      fixtureFile('export/notes.txt', 'manifest.csv'),
    ]);
    expect(await sameInWorkers({ files })).toBe(5);
  });

  it('a directory handle posted to the workers gives the page’s samples', async () => {
    const { dir, remove } = await opfsFolder({
      'x/IM1': await fixtureBytes('rgb8-rle.dcm'),
      'y/z/IM1': await fixtureBytes('multi-explicit.dcm'),
    });
    try {
      expect(await sameInWorkers({ directory: dir })).toBe(4);
    } finally {
      await remove();
    }
  });
});
