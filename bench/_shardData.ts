// The shard data of the browser benchmarks (shards, s3): files, GNU tar shards, sidecars, manifest.
import { execFileSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/** Seeded bytes standing in for an encoded 64x64 image (2-6 KB); byte 0 carries the label. */
function imageBytes(i: number): Uint8Array {
  let x = (i * 2654435761) >>> 0 || 1;
  const out = new Uint8Array(2048 + ((i * 7919) % 4096));
  for (let k = 0; k < out.length; k++) {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    out[k] = x & 0xff;
  }
  out[0] = i % 10;
  return out;
}

/**
 * `samples` samples (`<key>.png` + `<key>.cls`, label = index % 10) under `root/files/`, packed by
 * GNU tar into `shardCount` shards with sidecars (from `tar -tvR`) and a `manifest.json` in `root`.
 */
export function buildShardData(
  root: string,
  samples: number,
  shardCount: number,
): { keys: string[]; shardSizes: number[] } {
  const files = join(root, 'files');
  mkdirSync(files, { recursive: true });
  const keys: string[] = [];
  for (let i = 0; i < samples; i++) {
    const key = `sample${String(i).padStart(6, '0')}`;
    keys.push(key);
    writeFileSync(join(files, `${key}.png`), imageBytes(i));
    writeFileSync(join(files, `${key}.cls`), String(i % 10));
  }
  const shardSizes: number[] = [];
  const per = Math.ceil(samples / shardCount);
  const shards: { url: string; samples: number }[] = [];
  for (let s = 0; s * per < samples; s++) {
    const members = keys.slice(s * per, (s + 1) * per).flatMap((k) => [`${k}.cls`, `${k}.png`]);
    const name = `shard-${String(s).padStart(6, '0')}.tar`;
    const listFile = join(root, `${name}.list`);
    writeFileSync(listFile, members.join('\n'));
    execFileSync('tar', ['--format=gnu', '-cf', join(root, name), '-C', files, '-T', listFile]);
    const listing = execFileSync('tar', ['-tvR', '-f', join(root, name)], {
      encoding: 'utf8',
      maxBuffer: 64 << 20,
    });
    const entries: [string, number, number][] = [];
    for (const line of listing.split('\n')) {
      const m = /^block (\d+): (\S+)\s+\S+\s+(\d+) \S+ \S+ (.+)$/.exec(line);
      if (m && (m[2] as string).startsWith('-')) {
        entries.push([m[4] as string, (Number(m[1]) + 1) * 512, Number(m[3])]);
      }
    }
    writeFileSync(
      join(root, `${name}.idx.json`),
      JSON.stringify({ format: 'medfusion-tar-index', version: 1, entries }),
    );
    shardSizes.push(members.length / 2);
    shards.push({ url: name, samples: members.length / 2 });
  }
  writeFileSync(join(root, 'manifest.json'), JSON.stringify({ shards }));
  return { keys, shardSizes };
}
