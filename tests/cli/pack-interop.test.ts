// medfusion pack's output read by independent tools: GNU tar and Python's tarfile
// (byte for byte, and the sidecar offsets against tarfile's own), and by the
// library's WebDatasetSource over HTTP Range from nginx.
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { WebDatasetSource } from '@medfusion/web';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Nginx, startNginx } from '../fixtures-shards/nginx.js';
import { labelledImages, python, readTree, runCli, tempDir } from './cliHelpers.js';

const N = 40;
let root: string;
let out: string;
let images: Map<string, Uint8Array>;
let manifest: {
  count: number;
  shards: { url: string; samples: number; sha256: string; bytes: number; split?: string }[];
  labels: { counts: Record<string, number> };
  columns: { name: string; type: string }[];
  splits: Record<string, { samples: number; labels: Record<string, number>; manifest: string }>;
};

beforeAll(() => {
  root = tempDir();
  images = labelledImages(root, N);
  out = join(root, 'out');
  const r = runCli([
    'pack',
    join(root, 'labels.csv'),
    '--images',
    join(root, 'images'),
    '--out',
    out,
    '--samples-per-shard',
    '7',
    '--shuffle',
    '--seed',
    '3',
    '--split',
    'train=0.8,val=0.1,test=0.1',
  ]);
  expect(r.stderr).not.toMatch(/medfusion:/);
  expect(r.code).toBe(0);
  manifest = JSON.parse(readFileSync(join(out, 'manifest.json'), 'utf8'));
});

describe('medfusion pack of a labels CSV', () => {
  it('writes a manifest with counts, labels per split, columns and per-shard sha256', () => {
    expect(manifest.count).toBe(N);
    expect(manifest.shards.reduce((a, s) => a + s.samples, 0)).toBe(N);
    expect(manifest.labels.counts).toEqual({ '0': 26, '1': 14 });
    expect(manifest.columns).toEqual([
      { name: 'age', type: 'number' },
      { name: 'site', type: 'string' },
    ]);
    const splits = manifest.splits;
    expect(splits.train?.samples).toBe(32);
    expect((splits.val?.samples ?? 0) + (splits.test?.samples ?? 0)).toBe(8);
    // Stratified: each split holds both labels in about the data set's proportion.
    for (const s of Object.values(splits)) expect(Object.keys(s.labels).sort()).toEqual(['0', '1']);
    for (const s of manifest.shards) {
      const sha = python(
        'import hashlib,sys;print(hashlib.sha256(open(sys.argv[1],"rb").read()).hexdigest())',
        [join(out, s.url)],
      ).trim();
      expect(sha).toBe(s.sha256);
    }
  });

  it('GNU tar lists and extracts every member, byte for byte', () => {
    const x = tempDir();
    for (const s of manifest.shards) {
      const list = spawnSync('tar', ['tvf', join(out, s.url)], { encoding: 'utf8' });
      expect(list.status).toBe(0);
      expect(list.stdout).toMatch(/^-rw-r--r-- 0\/0 /m);
      const r = spawnSync('tar', ['xf', join(out, s.url), '-C', x]);
      expect(r.status).toBe(0);
    }
    const extracted = readTree(x);
    const pngs = [...extracted].filter(([name]) => name.endsWith('.png'));
    expect(pngs.length).toBe(N);
    for (const [name, bytes] of pngs) {
      expect(Buffer.compare(bytes, Buffer.from(images.get(name) as Uint8Array))).toBe(0);
    }
    const dog = [...images.keys()].find((k) => k.startsWith('dog/')) as string;
    expect(extracted.get(dog.replace('.png', '.cls'))?.toString()).toBe('1');
    expect(JSON.parse(extracted.get(dog.replace('.png', '.json'))?.toString() ?? '')).toMatchObject(
      {
        age: expect.any(Number),
        site: expect.any(String),
      },
    );
  });

  it("Python's tarfile finds each member's data where the sidecar index says", () => {
    const report = python(
      `
import json, sys, tarfile, hashlib
out = sys.argv[1]
m = json.load(open(out + "/manifest.json"))
bad = []
for s in m["shards"]:
    idx = json.load(open(out + "/" + s["url"] + ".idx.json"))
    t = tarfile.open(out + "/" + s["url"])
    got = [[i.name, i.offset_data, i.size] for i in t.getmembers() if i.isfile()]
    if got != idx["entries"]:
        bad.append(s["url"])
    raw = open(out + "/" + s["url"], "rb").read()
    for name, off, size in idx["entries"]:
        if t.extractfile(name).read() != raw[off:off + size]:
            bad.append(name)
print(json.dumps(bad))
`,
      [out],
    );
    expect(JSON.parse(report)).toEqual([]);
  });
});

describe("the library's WebDatasetSource over HTTP Range (nginx)", () => {
  let nginx: Nginx;
  beforeAll(async () => {
    nginx = await startNginx(out, join(root, 'nginx'));
  });
  afterAll(async () => {
    await nginx?.stop();
  });

  it('opens manifest.json and each split manifest and reads every sample as packed', async () => {
    const source = await WebDatasetSource.open({ manifestUrl: `${nginx.url}manifest.json` });
    expect(source.length).toBe(N);
    const seen = new Set<string>();
    for (let i = 0; i < source.length; i++) {
      const s = await source.get(i);
      const name = `${s.key}.png`;
      expect(
        Buffer.compare(
          Buffer.from(s.files.png as Uint8Array),
          Buffer.from(images.get(name) as Uint8Array),
        ),
      ).toBe(0);
      expect(new TextDecoder().decode(s.files.cls)).toBe(name.startsWith('dog/') ? '1' : '0');
      seen.add(name);
    }
    expect(seen.size).toBe(N);
    source.close();
    const train = await WebDatasetSource.open({
      manifestUrl: `${nginx.url}${manifest.splits.train?.manifest}`,
    });
    expect(train.length).toBe(manifest.splits.train?.samples);
    train.close();
  });

  it('medfusion verify and inspect read the data set from its URL', () => {
    const v = runCli(['verify', `${nginx.url}manifest.json`]);
    expect(v.code).toBe(0);
    expect(v.stdout).toMatch(new RegExp(`${manifest.shards.length} shards, ${N} samples verified`));
    const i = runCli(['inspect', nginx.url, '--json']);
    expect(i.code).toBe(0);
    const report = JSON.parse(i.stdout);
    expect(report).toMatchObject({ samples: N, shards: manifest.shards.length });
    expect(report.labels.train).toEqual(manifest.splits.train?.labels);
    expect(report.first[0].image).toBe('png 16x16');
  });
});
