// DICOM folders: files written by pydicom (an independent writer); the split keeps
// each patient in one split, no identifying tag goes into the shards unless
// --keep-tags names it, and a DICOM file without pixel data is refused by name.
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { python, readTree, runCli, tempDir } from './cliHelpers.js';

const WRITE_DICOM = `
import sys
from pydicom.dataset import Dataset, FileMetaDataset
from pydicom.uid import ExplicitVRLittleEndian, SecondaryCaptureImageStorage
def make(path, patient, n, pixels):
    meta = FileMetaDataset()
    meta.MediaStorageSOPClassUID = SecondaryCaptureImageStorage
    meta.MediaStorageSOPInstanceUID = "1.2.826.0.1.3680043.10.1" + patient[1:] + "." + str(n)
    meta.TransferSyntaxUID = ExplicitVRLittleEndian
    ds = Dataset()
    ds.file_meta = meta
    ds.SOPClassUID = meta.MediaStorageSOPClassUID
    ds.SOPInstanceUID = meta.MediaStorageSOPInstanceUID
    ds.PatientID = patient
    ds.PatientName = "Doe^" + patient
    ds.PatientBirthDate = "19600101"
    ds.AccessionNumber = "ACC" + patient
    ds.StudyInstanceUID = "1.2.826.0.1.3680043.10.2" + patient[1:]
    ds.Modality = "OT"
    ds.PatientAge = "050Y"
    if pixels:
        ds.Rows = 8; ds.Columns = 8; ds.BitsAllocated = 8; ds.BitsStored = 8; ds.HighBit = 7
        ds.SamplesPerPixel = 1; ds.PixelRepresentation = 0; ds.PhotometricInterpretation = "MONOCHROME2"
        ds.PixelData = bytes((i * 3 + n) % 256 for i in range(64))
    ds.is_little_endian = True; ds.is_implicit_VR = False
    ds.save_as(path, write_like_original=False)
import os
root, mode = sys.argv[1], sys.argv[2]
if mode == "nopixels":
    os.makedirs(root + "/a/P1", exist_ok=True)
    make(root + "/a/P1/1.dcm", "P1", 1, True)
    make(root + "/a/P1/2.dcm", "P1", 2, False)
else:
    for p in range(12):
        label = "sick" if p % 3 == 0 else "well"
        d = "%s/%s/P%02d" % (root, label, p)
        os.makedirs(d, exist_ok=True)
        for n in range(1 + p % 3):
            make("%s/%d.dcm" % (d, n), "P%02d" % p, n, True)
`;

let root: string;
beforeAll(() => {
  root = tempDir();
  python(WRITE_DICOM, [root, 'patients']);
});

/** Every member of every shard in `out`, extracted with GNU tar: name → bytes. */
function extractAll(out: string): Map<string, Buffer> {
  const x = tempDir();
  const manifest = JSON.parse(readFileSync(join(out, 'manifest.json'), 'utf8'));
  for (const s of manifest.shards) spawnSync('tar', ['xf', join(out, s.url), '-C', x]);
  return readTree(x);
}

describe('medfusion pack of a DICOM folder', () => {
  it('splits by patient: the files of one patient land in one split, stratified by label', () => {
    const out = join(tempDir(), 'out');
    const r = runCli([
      'pack',
      root,
      '--out',
      out,
      '--folder-labels',
      '--split',
      'train=0.5,test=0.5',
      '--samples-per-shard',
      '3',
    ]);
    expect(r.code, r.stderr).toBe(0);
    const manifest = JSON.parse(readFileSync(join(out, 'manifest.json'), 'utf8'));
    expect(manifest.count).toBe(24);
    const splitOf = new Map<string, string>();
    for (const s of manifest.shards) {
      const names = spawnSync('tar', ['tf', join(out, s.url)], { encoding: 'utf8' })
        .stdout.trim()
        .split('\n');
      for (const name of names) {
        const patient = name.split('/')[1] as string;
        expect(splitOf.get(patient) ?? s.split).toBe(s.split);
        splitOf.set(patient, s.split);
      }
    }
    expect(splitOf.size).toBe(12);
    for (const split of ['train', 'test']) {
      const labels = manifest.splits[split].labels;
      expect(Object.keys(labels).sort()).toEqual(['sick', 'well']);
    }
    // Stored as they are: the .dcm members are the original files, byte for byte.
    const files = extractAll(out);
    const original = readFileSync(join(root, 'sick/P00/0.dcm'));
    expect(Buffer.compare(files.get('sick/P00/0.dcm') as Buffer, original)).toBe(0);
    expect(runCli(['verify', out]).code).toBe(0);
  });

  it('stores no header tag by default, and only the tags --keep-tags names', () => {
    const plain = join(tempDir(), 'out');
    expect(runCli(['pack', root, '--out', plain]).code).toBe(0);
    expect([...extractAll(plain).keys()].filter((n) => n.endsWith('.json'))).toEqual([]);
    const kept = join(tempDir(), 'out');
    expect(runCli(['pack', root, '--out', kept, '--keep-tags', 'PatientAge,Modality']).code).toBe(
      0,
    );
    const files = extractAll(kept);
    const json = JSON.parse((files.get('sick/P00/0.json') as Buffer).toString());
    expect(json).toEqual({ Modality: 'OT', PatientAge: '050Y' });
    const text = [...files]
      .filter(([n]) => n.endsWith('.json'))
      .map(([, b]) => b.toString())
      .join('\n');
    expect(text).not.toMatch(/Doe|P00|ACC|19600101/);
    const manifest = readFileSync(join(kept, 'manifest.json'), 'utf8');
    expect(manifest).not.toMatch(/Doe|ACC|19600101/);
    expect(
      runCli(['pack', root, '--out', join(tempDir(), 'o'), '--keep-tags', 'PatientHeight']).code,
    ).toBe(2);
  });

  it('refuses a DICOM file with no pixel data, naming it', () => {
    const bad = tempDir();
    python(WRITE_DICOM, [bad, 'nopixels']);
    const out = join(tempDir(), 'out');
    const r = runCli(['pack', bad, '--out', out]);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/a\/P1\/2\.dcm: DICOM file has no pixel data \(7FE0,0010\)/);
    expect(existsSync(join(out, 'manifest.json'))).toBe(false);
  });
});
