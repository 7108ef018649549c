/**
 * Write the shard fixtures into `dir` with third-party tools: GNU tar packs
 * the shards (its `--block-number` listing makes the sidecar indices), GNU
 * coreutils' sha256sum hashes them for the manifests, and hyparquet-writer
 * writes the Parquet table.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parquetWriteBuffer } from 'hyparquet-writer';
import {
  GNU_LONG_SHARD,
  GNU_SHARDS,
  LONG_DIR,
  PARQUET,
  PAX_SHARD,
  parquetRow,
  sampleFiles,
  sampleKey,
} from './fixtures.js';
import { writeParquetCodecFixtures } from './parquetCodecs.js';

const EXTS = ['cls', 'json', 'png'] as const;

function writeSamples(work: string, shard: number, count: number, dir = ''): string[] {
  const names: string[] = [];
  for (let i = 0; i < count; i++) {
    const files = sampleFiles(shard, i);
    for (const ext of EXTS) {
      const name = `${dir ? `${dir}/` : ''}${sampleKey(shard, i)}.${ext}`;
      mkdirSync(join(work, dir), { recursive: true });
      writeFileSync(join(work, name), files[ext] as Uint8Array);
      names.push(name);
    }
  }
  return names;
}

function tar(format: string, out: string, cwd: string, names: string[]): void {
  execFileSync('tar', [
    `--format=${format}`,
    '--owner=0',
    '--group=0',
    '-cf',
    out,
    '-C',
    cwd,
    ...names,
  ]);
}

/** Sidecar index from `tar --list --verbose --block-number` (short names only: data = (block + 1) * 512). */
function sidecarFromGnuTar(tarFile: string): string {
  const listing = execFileSync('tar', ['-tvR', '-f', tarFile], { encoding: 'utf8' });
  const entries: [string, number, number][] = [];
  for (const line of listing.split('\n')) {
    const m = /^block (\d+): (\S+)\s+\S+\s+(\d+) \S+ \S+ (.+)$/.exec(line);
    if (!m || !(m[2] as string).startsWith('-')) continue;
    entries.push([m[4] as string, (Number(m[1]) + 1) * 512, Number(m[3])]);
  }
  return JSON.stringify({ format: 'medfusion-tar-index', version: 1, entries });
}

function sha256sum(file: string): string {
  return (execFileSync('sha256sum', [file], { encoding: 'utf8' }).split(' ')[0] as string).trim();
}

/** Build every fixture under `dir` (served as the web root). */
export async function buildFixtures(dir: string): Promise<void> {
  mkdirSync(dir, { recursive: true });
  const work = join(dir, '..', 'work');
  mkdirSync(work, { recursive: true });
  const manifest: { url: string; samples: number; sha256: string }[] = [];
  GNU_SHARDS.forEach((s, shard) => {
    const cwd = join(work, `s${shard}`);
    mkdirSync(cwd, { recursive: true });
    const names = writeSamples(cwd, shard, s.samples);
    const out = join(dir, s.name);
    tar('gnu', out, cwd, names);
    // Shards 0 and 1 get a sidecar; shard 2 must be indexed by streaming.
    if (shard < 2) writeFileSync(`${out}.idx.json`, sidecarFromGnuTar(out));
    manifest.push({ url: s.name, samples: s.samples, sha256: sha256sum(out) });
  });
  writeFileSync(join(dir, 'manifest.json'), JSON.stringify({ shards: manifest }));
  // Without sample counts: the source must index every shard at open.
  writeFileSync(
    join(dir, 'manifest-nocounts.json'),
    JSON.stringify({ shards: manifest.map((m) => ({ url: m.url, sha256: m.sha256 })) }),
  );
  const bad = manifest.map((m, i) => (i === 1 ? { ...m, sha256: '0'.repeat(64) } : m));
  writeFileSync(join(dir, 'manifest-badsha.json'), JSON.stringify({ shards: bad }));

  for (const [s, format, shard] of [
    [PAX_SHARD, 'posix', 10],
    [GNU_LONG_SHARD, 'gnu', 11],
  ] as const) {
    const cwd = join(work, `long${shard}`);
    mkdirSync(cwd, { recursive: true });
    tar(format, join(dir, s.name), cwd, writeSamples(cwd, shard, s.samples, LONG_DIR));
  }

  const rows = Array.from({ length: PARQUET.rows }, (_, r) => parquetRow(r));
  const buffer = parquetWriteBuffer({
    columnData: [
      { name: 'image', data: rows.map((r) => r.image), type: 'BYTE_ARRAY' },
      { name: 'age', data: rows.map((r) => r.age), type: 'DOUBLE' },
      { name: 'bmi', data: rows.map((r) => r.bmi), type: 'DOUBLE' },
      { name: 'label', data: rows.map((r) => r.label), type: 'INT32' },
    ],
    rowGroupSize: PARQUET.rowGroupSize,
  });
  writeFileSync(join(dir, PARQUET.name), new Uint8Array(buffer));
  writeParquetCodecFixtures(dir);
  writeFileSync(
    join(dir, 'not-a-tar.tar'),
    new TextEncoder().encode('this is not a tar file\n'.repeat(100)),
  );
}
