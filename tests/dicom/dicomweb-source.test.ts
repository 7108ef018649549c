// DicomWebSource against a real Orthanc (DICOMweb plugin): QIDO-RS resolves the study,
// WADO-RS frames come as stored (transfer-syntax=*) and decode to the fixtures' pixels.
import { DicomWebSource } from '@medfusion/web/dicom';
import { describe, expect, inject, it } from 'vitest';
import { imageNamed, maxDiff, rescaled } from './expected.js';

const { files, dicomWeb, proxy } = inject('dicom');
const study = files[0]?.study as string;

async function proxyCounts(): Promise<{ requests: number; bearer: number }> {
  return (await fetch(`${proxy}/__requests`)).json();
}

describe.skipIf(dicomWeb === null)('DicomWebSource on Orthanc', () => {
  it('resolves the study and decodes every instance as stored', async () => {
    const source = await DicomWebSource.open({ root: dicomWeb as string, study });
    expect(source.length).toBe(files.length);
    for (let i = 0; i < source.length; i++) {
      const { instance } = source.instanceOf(i);
      const f = files.find((x) => x.instance === instance);
      expect(f, `instance ${i} is one of the fixtures`).toBeDefined();
      const image = imageNamed(f!.image);
      const { image: got } = await source.get(i);
      const want = rescaled(image);
      const expected = image.photometric === 'MONOCHROME1' ? want.map((v) => 255 - v) : want;
      expect(maxDiff(got.data, expected), `${f!.file}`).toBeLessThanOrEqual(f!.tolerance);
    }
    // Orthanc answers 500 for Deflated frames asked as stored: fetched again as Explicit VR LE.
    expect(source.stats().transcodeFallbacks).toBe(1);
    // every load timed: waiting for frames (requests to Orthanc take time) vs decoding
    const phases = source.loadPhases();
    expect(phases).toMatchObject({ loads: source.length, threads: 1 });
    expect(phases?.sourceMs).toBeGreaterThan(0);
    expect(phases?.decodeMs).toBeGreaterThan(0);
    source.close();
  });

  it('reads one series, frame by frame, with tags from the metadata', async () => {
    const multi = files.find((f) => f.file === 'multi-rle.dcm')!;
    const source = await DicomWebSource.open({
      root: dicomWeb as string,
      study,
      series: multi.series,
      multiFrame: 'frames',
      tags: ['PatientAge', 'PixelSpacing'],
      label: (x) => x.frame,
    });
    expect(source.length).toBe(3);
    const want = rescaled(imageNamed('multi'));
    for (let f = 0; f < 3; f++) {
      const s = await source.get(f);
      expect(s.image.shape).toEqual([32, 32, 1]);
      expect(maxDiff(s.image.data, want.slice(f * 1024, (f + 1) * 1024))).toBe(0);
      expect([...s.tabular]).toEqual([45, 0.5]);
      expect(s.label).toBe(f + 1);
    }
  });

  it('sends the auth hook: headers with a bearer token, or a fetch of yours', async () => {
    const before = await proxyCounts();
    const headers = { Authorization: 'Bearer test-token' };
    const source = await DicomWebSource.open({ root: dicomWeb as string, study, headers });
    await source.get(0);
    const after = await proxyCounts();
    expect(after.requests - before.requests).toBeGreaterThanOrEqual(3); // QIDO, metadata, frames
    expect(after.bearer - before.bearer).toBe(after.requests - before.requests);
    const seen: string[] = [];
    const own: typeof fetch = (input, init) => {
      seen.push(new Headers(init?.headers).get('Accept') ?? '');
      return fetch(input, init);
    };
    const viaFetch = await DicomWebSource.open({ root: dicomWeb as string, study, fetch: own });
    await viaFetch.get(0);
    expect(seen).toContain('application/dicom+json');
    expect(seen.some((a) => a.includes('transfer-syntax=*'))).toBe(true);
  });

  it('rejects a study that is not a UID before any request', async () => {
    await expect(
      DicomWebSource.open({ root: dicomWeb as string, study: '../../instances' }),
    ).rejects.toThrow(/study must be a DICOM UID/);
  });
});
