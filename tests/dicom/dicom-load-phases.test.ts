// DicomSource times each load: waiting for the file's bytes vs decoding them (J2K and
// JPEG-LS decode in JavaScript/WASM, real CPU), so diagnose can tell decode CPU from the source.
import { createCachedDataset, diagnose } from '@medfusion/web';
import { DicomSource } from '@medfusion/web/dicom';
import { describe, expect, inject, it } from 'vitest';

const { files, filesUrl } = inject('dicom');

describe('DicomSource: load phases', () => {
  it('times each load it serves and reaches getCacheStats() and diagnose', async () => {
    const urls = files.filter((f) => f.image === 'ct16').map((f) => `${filesUrl}${f.file}`);
    expect(urls.length).toBeGreaterThan(1);
    const source = await DicomSource.open({ urls });
    expect(source.loadPhases()).toBeUndefined();
    const cached = createCachedDataset(source, { cacheType: 'lru', cacheSize: urls.length });
    for (let i = 0; i < urls.length; i++) await cached.get(i);
    for (let i = 0; i < urls.length; i++) await cached.get(i); // memory hits: no new loads
    const phases = source.loadPhases();
    expect(phases).toMatchObject({ loads: urls.length, threads: 1 });
    expect(phases?.sourceMs).toBeGreaterThan(0);
    expect(phases?.decodeMs).toBeGreaterThan(0);
    const stats = cached.getCacheStats();
    expect(stats.loadPhases).toEqual(phases);
    const d = diagnose(stats);
    expect(d.loadPhases?.decodeMs).toBeCloseTo((phases?.decodeMs ?? 0) / urls.length, 6);
    await cached.close();
  });
});
