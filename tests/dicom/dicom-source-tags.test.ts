// Selected tags become named tabular values; a missing required tag is a typed error that
// names the tag, never a value; identifying tags cannot be selected.
import { DicomError, DicomSource } from '@medfusion/web/dicom';
import { describe, expect, inject, it } from 'vitest';

const { filesUrl } = inject('dicom');

describe('DicomSource: tags', () => {
  it('reads PatientAge (years), PatientSex, Modality, BodyPartExamined and PixelSpacing', async () => {
    const source = await DicomSource.open({
      urls: [`${filesUrl}ct16-implicit.dcm`, `${filesUrl}ct16-deflated.dcm`],
      tags: [
        'PatientAge',
        'PatientSex',
        { name: 'Modality', categories: ['MR', 'CT'] },
        { name: 'BodyPartExamined', categories: ['HEAD', 'CHEST'] },
        'PixelSpacing',
        { name: 'PixelSpacing', valueIndex: 1 },
      ],
    });
    expect(source.tabularNames).toEqual([
      'PatientAge',
      'PatientSex',
      'Modality',
      'BodyPartExamined',
      'PixelSpacing',
      'PixelSpacing[1]',
    ]);
    for (const i of [0, 1]) {
      const { tabular } = await source.get(i);
      expect([...tabular]).toEqual([45, 1, 1, 1, 0.5, Math.fround(0.7)]);
    }
  });

  it('a missing required tag fails with DICOM_MISSING_TAG naming the tag only', async () => {
    const source = await DicomSource.open({
      urls: [`${filesUrl}ct16-explicit.dcm`],
      tags: ['PatientAge', { name: 'SliceThickness', required: true }],
    });
    const error = await source.get(0).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(DicomError);
    expect((error as DicomError).code).toBe('DICOM_MISSING_TAG');
    expect((error as DicomError).index).toBe(0);
    expect((error as Error).message).toMatch(/SliceThickness \(0018,0050\)/);
    // no patient attribute value in the message
    expect((error as Error).message).not.toMatch(/Fixture|Synthetic|MEDFUSION-TEST|045Y/);
  });

  it('an absent optional tag is NaN', async () => {
    const source = await DicomSource.open({
      urls: [`${filesUrl}ct16-explicit.dcm`],
      tags: ['KVP'],
    });
    expect(Number.isNaN((await source.get(0)).tabular[0])).toBe(true);
  });

  it('refuses identifying tags and code strings without categories at open', async () => {
    const url = `${filesUrl}ct16-explicit.dcm`;
    // biome-ignore lint/suspicious/noExplicitAny: an invalid keyword on purpose
    await expect(DicomSource.open({ urls: [url], tags: ['PatientName' as any] })).rejects.toThrow(
      /tags\[0\] "PatientName" is not a tag/,
    );
    await expect(DicomSource.open({ urls: [url], tags: ['Modality'] })).rejects.toThrow(
      /categories/,
    );
  });
});
