// headersTimeoutMs, as the DICOM sources' options type declares it: a server that accepts the
// connection and never answers fails with REQUEST_TIMEOUT (RequestTimeoutError) naming the URL,
// at open (QIDO-RS) or at get (WADO-RS frames, files).
import { DicomSource, DicomWebSource } from '@medfusion/web/dicom';
import { describe, expect, inject, it } from 'vitest';
import { causes, faultyFiles, faultyPacs, rejection } from './faults.js';

const { files, faults } = inject('dicom');
const ct = files.find((f) => f.file === 'ct16-explicit.dcm')!;

function timeoutIn(error: unknown): string {
  const line = causes(error).find((c) => c.startsWith('RequestTimeoutError REQUEST_TIMEOUT: '));
  expect(line, causes(error).join('\n')).toBeDefined();
  return line as string;
}

describe.skipIf(faults.orthanc === null)('DicomWebSource with headersTimeoutMs', () => {
  it('fails open when the PACS never answers the query', async () => {
    const pacs = faultyPacs('stallall');
    const error = await rejection(
      DicomWebSource.open({ root: pacs.root, study: ct.study, headersTimeoutMs: 300 }),
    );
    expect(timeoutIn(error)).toMatch(/no response headers within 300 ms .*\/instances\?/);
  });

  it('fails get when the PACS never answers a frame request', async () => {
    const pacs = faultyPacs('stall');
    const source = await DicomWebSource.open({
      root: pacs.root,
      study: ct.study,
      series: ct.series,
      // open()'s own queries reach Orthanc through the proxy and must answer within it: 300 ms
      // was too short once in CI under load.
      headersTimeoutMs: 2_000,
    });
    const error = await rejection(source.get(0));
    expect(timeoutIn(error)).toContain(`instances/${ct.instance}/frames/1`);
    source.close();
  });
});

describe('DicomSource with headersTimeoutMs', () => {
  it('fails get when the server never answers the file request', async () => {
    const server = faultyFiles('stall');
    const url = `${server.base}${ct.file}`;
    const source = await DicomSource.open({ urls: [url], headersTimeoutMs: 300 });
    expect(timeoutIn(await rejection(source.get(0)))).toContain(url);
    source.close();
  });
});
