// --decode of DICOM files: float32 .npy members of the rescaled values (Rescale Slope and
// Intercept applied), for every transfer syntax tested here; the truth is DCMTK/GDCM's
// decode of each compressed fixture (tests/setup/dicomFixtures.ts: raw stored values, slope
// and intercept from dcmdump) and pydicom's read of the native ones, compared by numpy; --size resizes bilinearly (PIL's bilinear
// on the truth); a multi-frame object is refused by name.
import { copyFileSync, mkdirSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { IMAGES } from '../dicom/fixtureImages.js';
import { buildDicomFixtures, ensureDicomTools } from '../setup/dicomFixtures.js';
import { python, runCli, tempDir } from './cliHelpers.js';

/** Per .npy member of the shards: dtype, shape and max |npy - truth| (truth: raw x slope + intercept, resized with PIL when asked). */
const COMPARE = `
import io, json, sys, tarfile
import numpy as np
import pydicom
from PIL import Image
out_dir, fixtures, truths, size = sys.argv[1], sys.argv[2], json.loads(sys.argv[3]), sys.argv[4]
manifest = json.load(open(out_dir + "/manifest.json"))
report = {}
for shard in manifest["shards"]:
    t = tarfile.open(out_dir + "/" + shard["url"])
    for m in t.getmembers():
        if not m.name.endswith(".npy"):
            continue
        arr = np.load(io.BytesIO(t.extractfile(m).read()))
        key = m.name[:-4]
        truth = truths[key]
        if "raw" in truth:  # compressed: DCMTK/GDCM's decode
            dtype = {8: np.uint8, 16: np.int16 if truth["signed"] else np.uint16}[truth["bits"]]
            raw = np.fromfile(fixtures + "/" + truth["raw"], dtype=dtype).astype(np.float64)
            slope, intercept = truth["slope"], truth["intercept"]
        else:  # native (explicit, implicit, deflated): pydicom's read
            ds = pydicom.dcmread(fixtures + "/" + truth["file"])
            raw = ds.pixel_array.astype(np.float64)
            slope, intercept = float(ds.get("RescaleSlope", 1)), float(ds.get("RescaleIntercept", 0))
        ref = (raw * slope + intercept).reshape(truth["rows"], truth["columns"], truth["spp"])
        if size != "keep":
            w, h = (int(v) for v in size.split("x"))
            ref = np.asarray(Image.fromarray(ref[:, :, 0].astype(np.float32), "F").resize((w, h), Image.BILINEAR))[:, :, None]
        if arr.shape[2] != ref.shape[2]:
            ref = np.repeat(ref, arr.shape[2], axis=2)
        report[key] = {"dtype": str(arr.dtype), "shape": list(arr.shape),
                       "maxdiff": float(np.abs(arr.astype(np.float64) - ref).max())}
print(json.dumps(report))
`;

const CT = ['explicit', 'implicit', 'deflated', 'rle', 'jpegls', 'jpeg-lossless-sv1', 'j2k'];

let fixtures: string;
let files: ReturnType<typeof buildDicomFixtures>;
beforeAll(() => {
  if (!ensureDicomTools()) throw new Error('these tests need DCMTK and GDCM');
  fixtures = tempDir();
  files = buildDicomFixtures(fixtures);
}, 120_000);

/** A folder holding copies of the fixtures named `<image>-<variant>.dcm`; their truths by sample key. */
function folderOf(names: string[]): { dir: string; truths: Record<string, unknown> } {
  const dir = tempDir();
  const truths: Record<string, unknown> = {};
  for (const name of names) {
    const f = files.find((x) => x.file === `${name}.dcm`);
    if (!f) throw new Error(`no fixture ${name}`);
    copyFileSync(join(fixtures, f.file), join(dir, f.file));
    const image = IMAGES.find((i) => i.name === f.image);
    if (!image) throw new Error(`no image ${f.image}`);
    truths[name] = {
      file: f.file,
      ...(f.truth ?? {}),
      rows: image.rows,
      columns: image.columns,
      spp: image.samplesPerPixel,
      bits: image.bitsAllocated,
      signed: image.signed,
    };
  }
  return { dir, truths };
}

describe('medfusion pack --decode of DICOM files', () => {
  it('stores float32 (rows, columns, 1) rescaled values, equal to DCMTK/GDCM x slope + intercept, for each transfer syntax', () => {
    const { dir, truths } = folderOf(CT.map((v) => `ct16-${v}`));
    const out = join(tempDir(), 'out');
    const r = runCli(['pack', dir, '--out', out, '--decode']);
    expect(r.code, r.stderr).toBe(0);
    const report = JSON.parse(python(COMPARE, [out, fixtures, JSON.stringify(truths), 'keep']));
    expect(Object.keys(report).sort()).toEqual(Object.keys(truths).sort());
    for (const [key, v] of Object.entries(report) as [string, Record<string, unknown>][]) {
      expect(v.dtype, key).toBe('float32');
      expect(v.shape, key).toEqual([64, 48, 1]);
      expect(v.maxdiff, key).toBe(0);
    }
    expect(runCli(['verify', out]).code).toBe(0);
    expect(JSON.parse(runCli(['inspect', out, '--json']).stdout).first[0].image).toBe(
      'npy <f4 64x48x1',
    );
  });

  it("--size 96x80 --channels 3 enlarges bilinearly (PIL's bilinear on the truth) and repeats grey to 3 channels", () => {
    const { dir, truths } = folderOf(['ct16-explicit', 'ct16-rle']);
    const out = join(tempDir(), 'out');
    const r = runCli(['pack', dir, '--out', out, '--decode', '--size', '96x80', '--channels', '3']);
    expect(r.code, r.stderr).toBe(0);
    const report = JSON.parse(python(COMPARE, [out, fixtures, JSON.stringify(truths), '96x80']));
    for (const [key, v] of Object.entries(report) as [string, Record<string, unknown>][]) {
      expect(v.shape, key).toEqual([80, 96, 3]);
      expect(v.maxdiff as number, key).toBeLessThan(0.01);
    }
  });

  it('refuses a multi-frame object, naming the file', () => {
    const dir = tempDir();
    mkdirSync(join(dir, 'm'));
    copyFileSync(join(fixtures, 'multi-explicit.dcm'), join(dir, 'm/multi.dcm'));
    const out = join(tempDir(), 'out');
    const r = runCli(['pack', dir, '--out', out, '--decode']);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/m\/multi\.dcm: cannot decode the image: has 3 frames/);
    expect(readdirSync(out)).not.toContain('manifest.json');
  });
});
