// A CSV manifest gives URLs (relative to it), labels and extra tabular columns.
import { DicomSource } from '@medfusion/web/dicom';
import { describe, expect, inject, it } from 'vitest';

const { files, filesUrl } = inject('dicom');

describe('DicomSource: manifest', () => {
  it('reads urls, labels and numeric columns, then the tags', async () => {
    const source = await DicomSource.open({
      manifestUrl: `${filesUrl}manifest.csv`,
      tags: ['PatientAge'],
    });
    expect(source.length).toBe(files.length);
    expect(source.tabularNames).toEqual(['score', 'PatientAge']);
    for (const i of [0, 3]) {
      const s = await source.get(i);
      expect(s.label).toBe(i % 2);
      expect([...s.tabular]).toEqual([i * 1.5, 45]);
      expect(source.urlOf(i)).toBe(`${filesUrl}${files[i]?.file}`);
    }
  });

  it('a fetch failure is a LoadError naming the index', async () => {
    const source = await DicomSource.open({
      urls: [`${filesUrl}no-such-file.dcm`],
      retry: { retries: 0 },
    });
    await expect(source.get(0)).rejects.toMatchObject({ code: 'LOAD_FAILED', index: 0 });
  });

  it('a file that is not DICOM fails with DICOM_FORMAT', async () => {
    const source = await DicomSource.open({ urls: [`${filesUrl}manifest.csv`] });
    await expect(source.get(0)).rejects.toMatchObject({ code: 'DICOM_FORMAT', index: 0 });
  });
});
