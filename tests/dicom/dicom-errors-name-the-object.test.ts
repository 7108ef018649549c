// Every format or decode error names what it came from: the file URL (DicomSource) or the SOP
// Instance UID and frame URL (DicomWebSource). A multipart answer without its closing boundary
// (a complete HTTP response) and a JPEG-LS frame no codec can decode, from a real Orthanc and
// the file server behind a proxy that breaks them.
import { DicomSource, DicomWebSource } from '@medfusion/web/dicom';
import { describe, expect, inject, it } from 'vitest';
import { causes, faultyFiles, faultyPacs, rejection } from './faults.js';

const { files, faults } = inject('dicom');
const ct = files.find((f) => f.file === 'ct16-explicit.dcm')!;
const jpegls = files.find((f) => f.file === 'ct16-jpegls.dcm')!;

/** The message of the first error in the chain with `code`. */
function messageOf(error: unknown, code: string): string {
  const line = causes(error).find((c) => c.includes(` ${code}: `));
  expect(line, causes(error).join('\n')).toBeDefined();
  return line as string;
}

describe('DicomSource', () => {
  it('names the file when a JPEG-LS frame fails to decode', async () => {
    const server = faultyFiles('corrupt');
    const url = `${server.base}${jpegls.file}`;
    const source = await DicomSource.open({ urls: [url] });
    const error = await rejection(source.get(0));
    expect(messageOf(error, 'DICOM_FORMAT')).toContain(url);
    expect(messageOf(error, 'DICOM_FORMAT')).toContain('JPEG-LS');
  });
});

describe.skipIf(faults.orthanc === null)('DicomWebSource', () => {
  const open = (root: string, f: typeof ct) =>
    DicomWebSource.open({ root, study: f.study, series: f.series });

  it('names the instance and URL of a multipart answer without its closing boundary', async () => {
    const pacs = faultyPacs('cut');
    const source = await open(pacs.root, ct);
    const message = messageOf(await rejection(source.get(0)), 'BAD_FORMAT');
    expect(message).toContain('closing boundary');
    expect(message).toContain(ct.instance);
    expect(message).toContain(`instances/${ct.instance}/frames/1`);
  });

  it('names the instance when a JPEG-LS frame fails to decode', async () => {
    const pacs = faultyPacs('corrupt');
    const source = await open(pacs.root, jpegls);
    const message = messageOf(await rejection(source.get(0)), 'DICOM_FORMAT');
    expect(message).toContain('JPEG-LS');
    expect(message).toContain(jpegls.instance);
  });
});
