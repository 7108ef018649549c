// DicomSource's local-file input refused or failing clearly: a TypeError naming the option for
// bad input, a DicomError for a folder without DICOM images, and DICOM_FILE_UNREADABLE naming
// the file (never a tag value) when a chosen file is deleted or changed before it is read.
import { LoadError } from '@medfusion/core';
import { DicomError, DicomSource } from '@medfusion/web/dicom';
import { describe, expect, inject, it } from 'vitest';
import { fixtureBytes, fixtureFile, opfsFolder } from './localFiles.js';

const { filesUrl } = inject('dicom');

async function rejection(p: Promise<unknown>): Promise<Error> {
  try {
    await p;
  } catch (error) {
    return error as Error;
  }
  throw new Error('expected a rejection');
}

describe('DicomSource: bad local input', () => {
  it('refuses input that is not files or a directory with a TypeError naming the option', async () => {
    const file = await fixtureFile('a.dcm', 'ct16-rle.dcm');
    await expect(DicomSource.open({ files: 'x' as never })).rejects.toThrow(
      /^files must be an iterable of File or Blob .*got "x"$/,
    );
    await expect(DicomSource.open({ files: [file, 'b.dcm'] as never })).rejects.toThrow(
      /^files\[1\] must be a File or Blob, got "b.dcm"$/,
    );
    await expect(DicomSource.open({ files: [] })).rejects.toThrow(/^files must not be empty$/);
    await expect(DicomSource.open({ directory: '/tmp' as never })).rejects.toThrow(
      /^directory must be a FileSystemDirectoryHandle .*got "\/tmp"$/,
    );
    await expect(
      DicomSource.open({ urls: [`${filesUrl}ct16-rle.dcm`], files: [file] }),
    ).rejects.toThrow(
      /^give exactly one of urls, manifestUrl, files or directory, got urls and files$/,
    );
    await expect(DicomSource.open({ files: [file], headers: { a: 'b' } })).rejects.toThrow(
      /^headers applies to urls and manifestUrl/,
    );
    await expect(DicomSource.open({ files: [file], retry: { retries: 2 } })).rejects.toThrow(
      /^retry applies/,
    );
    for (const error of await Promise.all([
      rejection(DicomSource.open({ files: 'x' as never })),
      rejection(DicomSource.open({ files: [file], labelColumn: 'y' })),
    ])) {
      expect(error).toBeInstanceOf(TypeError);
    }
  });

  it('an empty folder, or one without DICOM images, fails at open saying so', async () => {
    const empty = await opfsFolder({});
    const other = await opfsFolder({
      'a/notes.txt': 'x',
      'b/c/DICOMDIR': await fixtureBytes('cd/DICOMDIR'),
    });
    try {
      const e1 = await rejection(DicomSource.open({ directory: empty.dir }));
      expect(e1).toBeInstanceOf(DicomError);
      expect(e1.message).toBe('directory holds no file');
      const e2 = await rejection(DicomSource.open({ directory: other.dir }));
      expect((e2 as DicomError).code).toBe('DICOM_FORMAT');
      expect(e2.message).toMatch(/^directory holds no DICOM image: 2 file\(s\) skipped/);
    } finally {
      await empty.remove();
      await other.remove();
    }
  });
});

describe('DicomSource: a local file that cannot be read', () => {
  it('deleted after open: get fails with DICOM_FILE_UNREADABLE naming the file, no retry', async () => {
    const { dir, remove } = await opfsFolder({
      'series/IM1': await fixtureBytes('ct16-rle.dcm'),
      'series/IM2': await fixtureBytes('ct16-explicit.dcm'),
    });
    try {
      const series = await dir.getDirectoryHandle('series');
      const files = [
        new File([await (await series.getFileHandle('IM1')).getFile()], 'series/IM1'),
        await (await series.getFileHandle('IM2')).getFile(), // a snapshot of the OPFS file
      ];
      const source = await DicomSource.open({ files });
      expect(source.pathOf(0)).toBe('IM2');
      await series.removeEntry('IM2');
      const error = await rejection(source.get(0));
      expect(error).toBeInstanceOf(LoadError);
      const cause = (error as LoadError).cause as DicomError;
      expect(cause).toBeInstanceOf(DicomError);
      expect(cause.code).toBe('DICOM_FILE_UNREADABLE');
      expect(cause.message).toMatch(/^IM2 cannot be read \((NotFoundError|NotReadableError)\)/);
      expect(String(cause.message)).not.toMatch(/\^|Anonymized|PatientName/);
      expect(source.fileFetches).toBe(1);
      // The other file still loads.
      expect((await source.get(1)).image.shape).toEqual([64, 48, 1]);
    } finally {
      await remove();
    }
  });

  it('deleted before open: open fails with DICOM_FILE_UNREADABLE naming the file', async () => {
    const { dir, remove } = await opfsFolder({ IM1: await fixtureBytes('ct16-rle.dcm') });
    try {
      const stale = await (await dir.getFileHandle('IM1')).getFile();
      await dir.removeEntry('IM1');
      const error = await rejection(DicomSource.open({ files: [stale] }));
      expect(error).toBeInstanceOf(DicomError);
      expect((error as DicomError).code).toBe('DICOM_FILE_UNREADABLE');
      expect(error.message).toMatch(/^IM1 cannot be read \((NotFoundError|NotReadableError)\)/);
      expect((error as DicomError).cause).toBeInstanceOf(DOMException);
    } finally {
      await remove();
    }
  });
});
