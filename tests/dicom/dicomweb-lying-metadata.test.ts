// A PACS is untrusted like a file: metadata claiming NumberOfFrames 2^31 - 1 is refused with
// SIZE_LIMIT naming the instance and the claim, before any loop, allocation or URL over the
// claimed count (was a bare RangeError, or a hang, on a 'volume' get); a frames answer with
// one part more than the frames asked for is BAD_FORMAT naming the instance, never a bigger
// image. Faults from the proxy in front of Orthanc (tests/setup/faultProxy.ts).
import { LoadError, SizeLimitError } from '@medfusion/core';
import { SourceFormatError } from '@medfusion/web';
import { DicomWebSource } from '@medfusion/web/dicom';
import { describe, expect, inject, it } from 'vitest';
import { faultyPacs, rejection } from './faults.js';

const { files, faults } = inject('dicom');
const multi = files.find((f) => f.file === 'multi-rle.dcm')!;
const LIE = 2 ** 31 - 1;

/** The error behind `error` (a get wraps it in a LoadError naming the index). */
function inner(error: unknown): unknown {
  return error instanceof LoadError ? error.cause : error;
}

function open(fault: string, multiFrame: 'volume' | 'frames') {
  return DicomWebSource.open({
    root: faultyPacs(fault).root,
    study: multi.study,
    series: multi.series,
    multiFrame,
    retry: { baseDelayMs: 1 },
  });
}

describe.skipIf(faults.orthanc === null)('DicomWebSource: metadata that lies', () => {
  it("'volume': get of an instance claiming 2^31 - 1 frames rejects with SIZE_LIMIT", {
    timeout: 10_000,
  }, async () => {
    const source = await open(`frames-${LIE}`, 'volume');
    const error = inner(await rejection(source.get(0)));
    expect(error).toBeInstanceOf(SizeLimitError);
    expect((error as SizeLimitError).code).toBe('SIZE_LIMIT');
    expect((error as Error).message).toContain(multi.instance);
    expect((error as Error).message).toContain(String(LIE));
  });

  it("'volume': 100,000 small frames (under the sample cap) reject with SIZE_LIMIT, no URL of them", {
    timeout: 10_000,
  }, async () => {
    const source = await open('frames-100000', 'volume');
    const error = inner(await rejection(source.get(0)));
    expect(error).toBeInstanceOf(SizeLimitError);
    expect((error as Error).message).toContain(multi.instance);
    expect((error as Error).message).toContain('100000');
    expect((error as Error).message).toMatch(/multiFrame: 'frames'/);
  });

  it("'frames': open of an instance claiming 2^31 - 1 frames rejects with SIZE_LIMIT", {
    timeout: 10_000,
  }, async () => {
    const error = await rejection(open(`frames-${LIE}`, 'frames'));
    expect(error).toBeInstanceOf(SizeLimitError);
    expect((error as SizeLimitError).code).toBe('SIZE_LIMIT');
    expect((error as Error).message).toContain(multi.instance);
    expect((error as Error).message).toContain(String(LIE));
  });
});

describe.skipIf(faults.orthanc === null)(
  'DicomWebSource: a frames answer with a part too many',
  () => {
    it("'volume': 4 parts for 3 frames rejects with BAD_FORMAT", { timeout: 10_000 }, async () => {
      const source = await open('extra-part', 'volume');
      const error = inner(await rejection(source.get(0)));
      expect(error).toBeInstanceOf(SourceFormatError);
      expect((error as SourceFormatError).code).toBe('BAD_FORMAT');
      expect((error as Error).message).toContain(multi.instance);
      expect((error as Error).message).toMatch(/4 parts.*3 frames/);
    });

    it("'frames': 2 parts for 1 frame rejects with BAD_FORMAT", { timeout: 10_000 }, async () => {
      const source = await open('extra-part', 'frames');
      expect(source.length).toBe(3);
      const error = inner(await rejection(source.get(1)));
      expect(error).toBeInstanceOf(SourceFormatError);
      expect((error as SourceFormatError).code).toBe('BAD_FORMAT');
      expect((error as Error).message).toContain(multi.instance);
      expect((error as Error).message).toMatch(/2 parts.*1 frame/);
    });
  },
);
