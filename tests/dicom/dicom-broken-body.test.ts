// A body that breaks off mid-way (Content-Length announced, connection dropped after half):
// a typed, retryable RemoteReadError naming the URL, retried like any transient failure, never
// a bare 'TypeError: Failed to fetch'.
import { DicomSource, DicomWebSource } from '@medfusion/web/dicom';
import { describe, expect, inject, it } from 'vitest';
import { imageNamed, maxDiff, rescaled } from './expected.js';
import { causes, faultyFiles, faultyPacs, rejection } from './faults.js';

const { files, faults } = inject('dicom');
const ct = files.find((f) => f.file === 'ct16-explicit.dcm')!;
const want = rescaled(imageNamed('ct16'));

describe('DicomSource, a file whose body breaks off', () => {
  it('retries once and decodes the file', async () => {
    const server = faultyFiles('truncate-1');
    const source = await DicomSource.open({ urls: [`${server.base}${ct.file}`] });
    const { image } = await source.get(0);
    expect(maxDiff(image.data, want)).toBe(0);
    expect((await server.stats()).faultProne).toBe(2);
  });

  it('fails typed, naming the URL, when every attempt breaks off', async () => {
    const server = faultyFiles('truncate-all');
    const url = `${server.base}${ct.file}`;
    const source = await DicomSource.open({ urls: [url], retry: { retries: 2, baseDelayMs: 1 } });
    const chain = causes(await rejection(source.get(0)));
    expect(chain[1]).toMatch(/^RetryExhaustedError RETRIES_EXHAUSTED: Gave up after 3 attempts/);
    expect(chain[2]).toMatch(/^RemoteReadError NETWORK_ERROR: /);
    expect(chain[2]).toContain(url);
    expect((await server.stats()).faultProne).toBe(3);
  });
});

describe.skipIf(faults.orthanc === null)('DicomWebSource, frames whose body breaks off', () => {
  const open = (root: string, retries: number) =>
    DicomWebSource.open({
      root,
      study: ct.study,
      series: ct.series,
      retry: { retries, baseDelayMs: 1 },
    });

  it('retries and decodes the frame', async () => {
    const pacs = faultyPacs('truncate-1');
    const source = await open(pacs.root, 2);
    const { image } = await source.get(0);
    expect(maxDiff(image.data, want)).toBe(0);
    expect((await pacs.stats()).faultProne).toBe(2);
    expect(source.stats().transcodeFallbacks).toBe(0);
  });

  it('fails typed, naming the URL, when every attempt breaks off', async () => {
    const pacs = faultyPacs('truncate-all');
    const source = await open(pacs.root, 1);
    const chain = causes(await rejection(source.get(0)));
    expect(chain[1]).toMatch(/^RetryExhaustedError RETRIES_EXHAUSTED: Gave up after 2 attempts/);
    expect(chain[2]).toMatch(
      new RegExp(`^RemoteReadError NETWORK_ERROR: .*instances/${ct.instance}/frames/1`),
    );
  });
});
