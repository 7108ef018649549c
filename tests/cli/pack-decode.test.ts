// --decode stores decoded pixels as uint8 .npy members: numpy reads them, with the
// pixels PIL decodes from the original files; --size resizes; mixed sizes without
// --size are refused by name (DICOM: pack-decode-dicom.test.ts).
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { encode } from 'fast-png';
import { describe, expect, it } from 'vitest';
import { noise, png, python, runCli, tempDir, writeTree } from './cliHelpers.js';

/** numpy (np.load) against PIL on every .npy member: shape, and max |difference| to PIL's pixels. */
const COMPARE = `
import io, json, sys, tarfile
import numpy as np
from PIL import Image
shards, src, mode, size = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4]
out = {}
for path in shards.split(","):
    t = tarfile.open(path)
    for m in t.getmembers():
        if not m.name.endswith(".npy"):
            continue
        arr = np.load(io.BytesIO(t.extractfile(m).read()))
        img = Image.open(src + "/" + m.name[:-4] + ".png").convert(mode)
        if size != "keep":
            w, h = (int(v) for v in size.split("x"))
            img = img.resize((w, h), Image.LANCZOS)
        ref = np.asarray(img, dtype=np.int16).reshape(arr.shape)
        out[m.name] = {"dtype": str(arr.dtype), "shape": list(arr.shape),
                       "maxdiff": int(np.abs(arr.astype(np.int16) - ref).max()),
                       "meandiff": float(np.abs(arr.astype(np.int16) - ref).mean())}
print(json.dumps(out))
`;

function rgbPng(seed: number, width: number, height: number): Uint8Array {
  return encode({ width, height, data: noise(seed, width * height * 3), channels: 3 });
}

function shardsOf(out: string): string {
  return spawnSync('ls', [out], { encoding: 'utf8' })
    .stdout.split('\n')
    .filter((n) => n.endsWith('.tar'))
    .map((n) => join(out, n))
    .join(',');
}

describe('medfusion pack --decode', () => {
  it("stores (H, W, 1) uint8 luminance numpy reads, equal to PIL's grey values (±1 rounding)", () => {
    const src = tempDir();
    writeTree(src, [
      ['g/a.png', png(1, 12)],
      ['g/b.png', png(2, 12)],
      ['c/x.png', rgbPng(3, 12, 12)],
    ]);
    const out = join(tempDir(), 'out');
    const r = runCli(['pack', src, '--out', out, '--decode']);
    expect(r.code, r.stderr).toBe(0);
    const report = JSON.parse(python(COMPARE, [shardsOf(out), src, 'L', 'keep']));
    expect(Object.keys(report).sort()).toEqual(['c/x.npy', 'g/a.npy', 'g/b.npy']);
    for (const v of Object.values(report) as {
      dtype: string;
      shape: number[];
      maxdiff: number;
    }[]) {
      expect(v.dtype).toBe('uint8');
      expect(v.shape).toEqual([12, 12, 1]);
      expect(v.maxdiff).toBeLessThanOrEqual(1);
    }
    expect((report['g/a.npy'] as { maxdiff: number }).maxdiff).toBe(0);
    expect(runCli(['verify', out]).code).toBe(0);
    expect(JSON.parse(runCli(['inspect', out, '--json']).stdout).first[0].image).toBe(
      'npy |u1 12x12x1',
    );
  });

  it("--size 8x6 --channels 3 resizes to (6, 8, 3), close to PIL's Lanczos resize; mixed sizes are fine then", () => {
    const src = tempDir();
    writeTree(src, [
      ['a.png', rgbPng(1, 32, 24)],
      ['b.png', rgbPng(2, 20, 20)],
    ]);
    const out = join(tempDir(), 'out');
    const r = runCli(['pack', src, '--out', out, '--decode', '--size', '8x6', '--channels', '3']);
    expect(r.code, r.stderr).toBe(0);
    const report = JSON.parse(python(COMPARE, [shardsOf(out), src, 'RGB', '8x6']));
    for (const v of Object.values(report) as { shape: number[]; meandiff: number }[]) {
      expect(v.shape).toEqual([6, 8, 3]);
      expect(v.meandiff).toBeLessThan(12);
    }
  });

  it('refuses images of mixed sizes without --size, naming the file and both sizes', () => {
    const src = tempDir();
    writeTree(src, [
      ['a.png', png(1, 16)],
      ['b.png', png(2, 20)],
    ]);
    const r = runCli(['pack', src, '--out', join(tempDir(), 'out'), '--decode']);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(
      /b\.png: is 20x20, a\.png is 16x16: images of mixed sizes need --size/,
    );
  });

  it('rejects --size without --decode and a bad --channels (exit 2)', () => {
    const src = tempDir();
    writeTree(src, [['a.png', png(1)]]);
    expect(runCli(['pack', src, '--out', join(tempDir(), 'o'), '--size', '8x8']).code).toBe(2);
    expect(
      runCli(['pack', src, '--out', join(tempDir(), 'o'), '--decode', '--channels', '2']).code,
    ).toBe(2);
  });
});
