// docs/dicom.md promises retries on network errors: a PACS that drops the connection of a
// WADO-RS frame request twice still gives the frame; one that always drops it ends in
// RETRIES_EXHAUSTED after retries + 1 attempts, naming the URL.
import { DicomWebSource } from '@medfusion/web/dicom';
import { describe, expect, inject, it } from 'vitest';
import { imageNamed, maxDiff, rescaled } from './expected.js';
import { causes, faultyPacs, rejection } from './faults.js';

const { files, faults } = inject('dicom');
const ct = files.find((f) => f.file === 'ct16-explicit.dcm')!;

describe.skipIf(faults.orthanc === null)('DicomWebSource retries network errors', () => {
  it('gets a frame after two connection resets', async () => {
    const pacs = faultyPacs('reset-2');
    const source = await DicomWebSource.open({
      root: pacs.root,
      study: ct.study,
      series: ct.series,
      retry: { baseDelayMs: 1 },
    });
    const { image } = await source.get(0);
    expect(maxDiff(image.data, rescaled(imageNamed('ct16')))).toBe(0);
    // (Chromium may itself resend a request whose reused connection was reset)
    expect((await pacs.stats()).faultProne).toBeGreaterThanOrEqual(3);
    expect(source.stats().transcodeFallbacks).toBe(0);
  });

  it('gives up after retries + 1 attempts with the network error naming the URL', async () => {
    const pacs = faultyPacs('reset-all');
    const source = await DicomWebSource.open({
      root: pacs.root,
      study: ct.study,
      series: ct.series,
      retry: { retries: 2, baseDelayMs: 1 },
    });
    const chain = causes(await rejection(source.get(0)));
    expect(chain.join('\n')).toMatch(/RETRIES_EXHAUSTED: Gave up after 3 attempts/);
    expect(chain.join('\n')).toMatch(
      new RegExp(`RemoteReadError NETWORK_ERROR: .*instances/${ct.instance}/frames/1`),
    );
  });
});
