// The data of `pnpm bench feed`, made in Node: `samples` seeded 224x224 RGB images (smooth
// shapes and some noise, so PNG and JPEG sizes are an image's, not noise's) written as PNG and
// JPEG by sharp (the CLI's own dependency), packed by `medfusion pack` three ways: the PNG files
// (shards-png), the JPEG files (shards-jpeg) and `--decode --size 224x224 --channels 3`
// (shards-decoded). Then the byte range of every sample's image member, in dataset order, for
// the ceilings' plain range fetches and for the codec ceiling.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join, resolve } from 'node:path';
import { CHANNELS, type Member, SIDE } from './types.js';

const repo = resolve(import.meta.dirname, '../..');
const BIN = join(repo, 'packages/cli/dist/bin.js');
/** The part of sharp used here (sharp is the CLI's dependency, not the bench's). */
interface SharpImage {
  clone(): SharpImage;
  png(): SharpImage;
  jpeg(o: { quality: number }): SharpImage;
  toFile(path: string): Promise<unknown>;
}
type Sharp = (
  input: Buffer,
  o: { raw: { width: number; height: number; channels: number } },
) => SharpImage;
const sharp = createRequire(join(repo, 'packages/cli/package.json'))('sharp') as Sharp;

function pixels(i: number): Buffer {
  const out = Buffer.alloc(SIDE * SIDE * CHANNELS);
  let x = (i * 2654435761) >>> 0 || 1;
  const cx = 40 + ((i * 37) % 144);
  const cy = 40 + ((i * 91) % 144);
  for (let y = 0; y < SIDE; y++) {
    for (let xx = 0; xx < SIDE; xx++) {
      x ^= x << 13;
      x ^= x >>> 17;
      x ^= x << 5;
      const noise = (x & 15) - 8;
      const d = Math.hypot(xx - cx, y - cy);
      const disc = d < 30 + (i % 20) ? 80 : 0;
      const o = (y * SIDE + xx) * CHANNELS;
      out[o] = Math.max(0, Math.min(255, xx + disc + noise));
      out[o + 1] = Math.max(0, Math.min(255, y + noise));
      out[o + 2] = Math.max(0, Math.min(255, ((xx + y) >> 1) + disc + noise));
    }
  }
  return out;
}

/** The image members of the shards of `dir` (its manifest.json), in dataset order. */
export function members(dir: string, urlBase: string, ext: string): Member[] {
  const manifest = JSON.parse(readFileSync(join(dir, 'manifest.json'), 'utf8')) as {
    shards: { url: string }[];
  };
  const out: Member[] = [];
  for (const shard of manifest.shards) {
    const tar = readFileSync(join(dir, shard.url));
    for (let at = 0; at + 512 <= tar.length; ) {
      const header = tar.subarray(at, at + 512);
      if (header.every((b) => b === 0)) break;
      const name = header.subarray(0, 100).toString('latin1').replace(/\0.*$/s, '');
      const size = Number.parseInt(header.subarray(124, 136).toString('latin1').trim() || '0', 8);
      const type = String.fromCharCode(header[156] as number);
      const start = at + 512;
      if ((type === '0' || type === '\0') && name.endsWith(`.${ext}`)) {
        out.push({ url: `${urlBase}/${shard.url}`, start, end: start + size });
      }
      at = start + Math.ceil(size / 512) * 512;
    }
  }
  return out;
}

/** The three shard sets under `root` and their members. */
export interface FeedData {
  root: string;
  members: Record<'shards-decoded' | 'shards-png' | 'shards-jpeg', Member[]>;
}

/** Make (or, when `root` already holds them, reuse) the shards of `samples` images. */
export async function buildFeedData(root: string, samples: number): Promise<FeedData> {
  const made = ['shards-png', 'shards-jpeg', 'shards-decoded'].every((d) =>
    existsSync(join(root, d, 'manifest.json')),
  );
  if (!made) await makeFeedData(root, samples);
  return {
    root,
    members: {
      'shards-decoded': members(join(root, 'shards-decoded'), '/shards-decoded', 'npy'),
      'shards-png': members(join(root, 'shards-png'), '/shards-png', 'png'),
      'shards-jpeg': members(join(root, 'shards-jpeg'), '/shards-jpeg', 'jpg'),
    },
  };
}

async function makeFeedData(root: string, samples: number): Promise<void> {
  rmSync(root, { recursive: true, force: true });
  for (let i = 0; i < samples; i++) {
    const label = String(i % 10);
    mkdirSync(join(root, 'src-png', label), { recursive: true });
    mkdirSync(join(root, 'src-jpg', label), { recursive: true });
    const key = `s${String(i).padStart(6, '0')}`;
    const raw = sharp(pixels(i), { raw: { width: SIDE, height: SIDE, channels: CHANNELS } });
    await raw
      .clone()
      .png()
      .toFile(join(root, 'src-png', label, `${key}.png`));
    await raw
      .clone()
      .jpeg({ quality: 90 })
      .toFile(join(root, 'src-jpg', label, `${key}.jpg`));
  }
  const pack = (src: string, out: string, extra: string[] = []) =>
    packFolder(join(root, src), join(root, out), extra);
  pack('src-png', 'shards-png');
  pack('src-jpg', 'shards-jpeg');
  pack('src-png', 'shards-decoded', ['--decode', '--size', `${SIDE}x${SIDE}`, '--channels', '3']);
  rmSync(join(root, 'src-png'), { recursive: true });
  rmSync(join(root, 'src-jpg'), { recursive: true });
}

/** `medfusion pack <src> --out <out> --folder-labels ...extra` (the built CLI, in this Node). */
export function packFolder(src: string, out: string, extra: string[] = []): void {
  execFileSync(process.execPath, [BIN, 'pack', src, '--out', out, '--folder-labels', ...extra], {
    stdio: ['ignore', 'ignore', 'inherit'],
  });
}
