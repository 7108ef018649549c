// inspect and verify read shards other tools wrote (GNU tar, Python's tarfile in
// WebDataset's layout), and verify names the shard and sample of every defect.
import { spawnSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { crc32 } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { labelledImages, png, python, runCli, tempDir, writeTree } from './cliHelpers.js';

/** WebDataset's TarWriter/ShardWriter layout: per key, its files in a row; shards rolled by count. */
const PYTHON_WRITER = `
import io, sys, tarfile
src, out, n = sys.argv[1], sys.argv[2], int(sys.argv[3])
for s in range(2):
    with tarfile.open("%s/py-%06d.tar" % (out, s), "w", format=tarfile.USTAR_FORMAT) as t:
        for i in range(s * n, (s + 1) * n):
            key = "sample%06d" % i
            for ext, data in (("png", open("%s/%d.png" % (src, i), "rb").read()), ("cls", str(i % 2).encode())):
                info = tarfile.TarInfo(key + "." + ext)
                info.size = len(data)
                info.mtime = 0
                t.addfile(info, io.BytesIO(data))
`;

describe('medfusion inspect and verify read shards written by other tools', () => {
  it("Python's tarfile (WebDataset layout)", () => {
    const src = tempDir();
    writeTree(
      src,
      Array.from({ length: 8 }, (_, i) => [`${i}.png`, png(i)] as [string, Uint8Array]),
    );
    const out = tempDir();
    python(PYTHON_WRITER, [src, out, '4']);
    const v = runCli(['verify', out]);
    expect(v.code, v.stderr).toBe(0);
    expect(v.stdout).toMatch(/2 shards, 8 samples verified/);
    const i = runCli(['inspect', out, '--json']);
    expect(i.code).toBe(0);
    const r = JSON.parse(i.stdout);
    expect(r).toMatchObject({ samples: 8, shards: 2, labels: { all: { '0': 4, '1': 4 } } });
    expect(r.first[0]).toMatchObject({ key: 'sample000000', image: 'png 16x16', label: '0' });
  });

  it('GNU tar (its default format, a folder archived with its directory entries)', () => {
    const src = tempDir();
    writeTree(src, [
      ['d/a.png', png(1)],
      ['d/a.cls', '1'],
      ['d/b.png', png(2)],
      ['d/b.cls', '0'],
    ]);
    const out = tempDir();
    const tar = spawnSync('tar', [
      'cf',
      join(out, 'gnu-000000.tar'),
      '--sort=name',
      '-C',
      src,
      'd',
    ]);
    expect(tar.status).toBe(0);
    const v = runCli(['verify', join(out, 'gnu-000000.tar')]);
    expect(v.code, v.stderr).toBe(0);
    expect(v.stdout).toMatch(/1 shards, 2 samples verified/);
    const i = JSON.parse(runCli(['inspect', out, '--json']).stdout);
    expect(i).toMatchObject({ samples: 2, labels: { all: { '0': 1, '1': 1 } } });
  });
});

describe('medfusion verify names what is wrong', () => {
  function packed(): string {
    const root = tempDir();
    labelledImages(root, 12);
    const out = join(root, 'out');
    const r = runCli([
      'pack',
      join(root, 'labels.csv'),
      '--images',
      join(root, 'images'),
      '--out',
      out,
      '--samples-per-shard',
      '4',
    ]);
    expect(r.code, r.stderr).toBe(0);
    return out;
  }

  it('a flipped byte inside an image: the sha256 and the broken sample, by shard and key', () => {
    const out = packed();
    const shard = join(out, 'data-000001.tar');
    const idx = JSON.parse(readFileSync(`${shard}.idx.json`, 'utf8'));
    const [name, offset, size] = idx.entries[0];
    const bytes = readFileSync(shard);
    // The last chunk's type byte: the PNG no longer ends with IEND.
    const at = offset + size - 8;
    bytes[at] = (bytes[at] as number) ^ 0xff;
    writeFileSync(shard, bytes);
    const v = runCli(['verify', out]);
    expect(v.code).toBe(1);
    expect(v.stderr).toMatch(/FAILED data-000001\.tar: sha256 is [0-9a-f]{64}, the manifest says/);
    expect(v.stderr).toContain(
      `FAILED data-000001.tar sample ${name.replace('.png', '')}: png member`,
    );
    expect(v.stderr).not.toMatch(/data-00000[02]/);
  });

  it('a PNG whose compressed pixels are corrupt under valid CRCs: verify decodes it and names the sample', () => {
    const out = packed();
    const shard = join(out, 'data-000000.tar');
    const idx = JSON.parse(readFileSync(`${shard}.idx.json`, 'utf8'));
    const [name, offset] = idx.entries[0];
    const bytes = readFileSync(shard);
    // Walk the PNG's chunks to IDAT; change a byte of its data and recompute the CRC.
    let at = offset + 8;
    for (;;) {
      const length = bytes.readUInt32BE(at);
      if (bytes.toString('latin1', at + 4, at + 8) === 'IDAT') {
        const k = at + 8 + Math.floor(length / 2);
        bytes[k] = (bytes[k] as number) ^ 0xff;
        bytes.writeUInt32BE(crc32(bytes.subarray(at + 4, at + 8 + length)), at + 8 + length);
        break;
      }
      at += 12 + length;
    }
    writeFileSync(shard, bytes);
    const v = runCli(['verify', out]);
    expect(v.code).toBe(1);
    expect(v.stderr).toContain(
      `FAILED data-000000.tar sample ${name.replace('.png', '')}: png member: `,
    );
    expect(v.stderr).not.toMatch(/CRC/);
  });

  it('a sidecar index that points at the wrong bytes', () => {
    const out = packed();
    const idxPath = join(out, 'data-000002.tar.idx.json');
    const idx = JSON.parse(readFileSync(idxPath, 'utf8'));
    idx.entries[1][1] += 512;
    writeFileSync(idxPath, JSON.stringify(idx));
    const v = runCli(['verify', out]);
    expect(v.code).toBe(1);
    expect(v.stderr).toMatch(
      /FAILED data-000002\.tar: bad sidecar index: .*data-000002\.tar\.idx\.json/,
    );
  });

  it('a missing shard and a truncated shard', () => {
    const out = packed();
    spawnSync('rm', [join(out, 'data-000000.tar')]);
    const shard = join(out, 'data-000002.tar');
    writeFileSync(shard, readFileSync(shard).subarray(0, 3000));
    const v = runCli(['verify', out]);
    expect(v.code).toBe(1);
    expect(v.stderr).toMatch(/FAILED data-000000\.tar: shard file is missing/);
    expect(v.stderr).toMatch(/FAILED data-000002\.tar: shard is 3000 bytes, the manifest says/);
  });
});
