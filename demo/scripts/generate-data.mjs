#!/usr/bin/env node
// Generates the demo's synthetic multimodal "medical" data set, deterministically
// from a seed: N grayscale 64×64 PNG scans with a lesion-like blob whose size and
// contrast depend on the label, and a CSV manifest whose tabular features (age,
// two marker levels, BMI) are correlated with the label. The same samples are
// also packed into WebDataset tar shards (`shards/`, ustar, a sidecar index
// per shard and a `manifest.json`) for the demo's "remote shards" source, and
// written as DICOM files (`dicom/<id>.dcm`, Explicit VR Little Endian, by dcmjs,
// so no DCMTK is needed) with `dicom/manifest.csv` for the "DICOM" source.
//
//   node demo/scripts/generate-data.mjs [--count 10000] [--out demo/.data/synthetic] [--seed 42]
//     [--shard-size 1000] [--force]
//
// Skips the work when the folder already holds a complete set with the same
// parameters (a `meta.json` is written last, so an interrupted run is redone);
// shards missing or packed with another shard size are rebuilt from the files.
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import dcmjs from 'dcmjs';
import { encode } from 'fast-png';
import { packTar } from 'modern-tar';
import { part10File } from '../../scripts/dicomPart10.mjs';

const here = dirname(fileURLToPath(import.meta.url));
/** Where `npm run demo` keeps its data (git-ignored). */
export const DEFAULT_DATA_DIR = resolve(here, '..', '.data', 'synthetic');
const SIZE = 64;
const VERSION = 3;

/** mulberry32: a tiny seeded PRNG, plenty for synthetic data. */
function rng(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Standard normal by Box–Muller. */
function gauss(rand) {
  const u = Math.max(rand(), 1e-12);
  return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * rand());
}

/** One scan: smooth tissue background, noise, and an elliptic blob. */
function scan(rand, label, pixels) {
  // Malignant (1): larger, brighter, irregular lesion; benign (0): small and faint.
  const radius = label ? 9 + rand() * 7 : 3 + rand() * 4;
  const contrast = label ? 70 + rand() * 60 : 20 + rand() * 30;
  const cx = 16 + rand() * 32;
  const cy = 16 + rand() * 32;
  const stretch = 0.7 + rand() * 0.6;
  const angle = rand() * Math.PI;
  const ca = Math.cos(angle);
  const sa = Math.sin(angle);
  const base = 60 + rand() * 40;
  const fx = 0.05 + rand() * 0.1;
  const fy = 0.05 + rand() * 0.1;
  const phase = rand() * 6.28;
  for (let y = 0; y < SIZE; y++) {
    for (let x = 0; x < SIZE; x++) {
      const dx = x - cx;
      const dy = y - cy;
      const u = (dx * ca + dy * sa) / stretch;
      const v = (-dx * sa + dy * ca) * stretch;
      const d2 = (u * u + v * v) / (radius * radius);
      const tissue = base + 15 * Math.sin(x * fx + phase) * Math.cos(y * fy);
      const value = tissue + contrast * Math.exp(-d2 * 1.5) + gauss(rand) * 8;
      pixels[y * SIZE + x] = Math.min(Math.max(value, 0), 255);
    }
  }
}

/**
 * One scan as a DICOM Part 10 file (a secondary-capture-like CT slice, 8-bit
 * MONOCHROME2, synthetic patient: age and sex from the record, no real identity).
 */
function dicomFile(pixels, age, study, number) {
  const dataset = {
    SOPClassUID: '1.2.840.10008.5.1.4.1.1.7',
    SOPInstanceUID: dcmjs.data.DicomMetaDictionary.uid(),
    StudyInstanceUID: study,
    SeriesInstanceUID: study,
    // The manifest row + 1: DICOMweb lists instances in this order, and the demo maps them back to their row.
    InstanceNumber: number,
    Modality: 'OT',
    PatientAge: `${String(age).padStart(3, '0')}Y`,
    SamplesPerPixel: 1,
    PhotometricInterpretation: 'MONOCHROME2',
    Rows: SIZE,
    Columns: SIZE,
    BitsAllocated: 8,
    BitsStored: 8,
    HighBit: 7,
    PixelRepresentation: 0,
    PixelData: [Uint8Array.from(pixels).buffer],
    _vrMap: { PixelData: 'OB' },
  };
  return part10File(dataset, '1.2.826.0.1.3680043.10.1104.2');
}

/** Tabular features correlated with the label (rounded like a real record). */
function features(rand, label) {
  const age = Math.round(Math.min(90, Math.max(20, 52 + (label ? 9 : -4) + gauss(rand) * 11)));
  const markerA = Math.max(0, (label ? 6.5 : 3.2) + gauss(rand) * 1.8);
  const markerB = Math.max(0, (label ? 14 : 9) + gauss(rand) * 4);
  const bmi = 18 + rand() * 14 + (label ? 1.5 : 0);
  return [age, markerA.toFixed(2), markerB.toFixed(2), bmi.toFixed(1)];
}

/** The shards' manifest when it is complete and packed with `shardSize` samples per shard. */
function shardsUpToDate(out, count, shardSize) {
  try {
    const m = JSON.parse(readFileSync(join(out, 'shards', 'manifest.json'), 'utf8'));
    return m.count === count && m.samplesPerShard === shardSize;
  } catch {
    return false;
  }
}

/**
 * Core's shard format code (the tar layout, the sidecar index, the manifest's
 * checks), loaded from its TypeScript source with tsx: the one definition the
 * CLI, web's packFiles and the shard source use, not a copy of it here.
 */
async function shardFormat() {
  const { tsImport } = await import('tsx/esm/api');
  const src = (file) => new URL(`../../packages/core/src/${file}`, import.meta.url).href;
  const [index, internal] = await Promise.all([
    tsImport(src('index.ts'), import.meta.url),
    tsImport(src('internal.ts'), import.meta.url),
  ]);
  return { ...index, ...internal };
}

/**
 * Pack the samples of `out/manifest.csv` + `out/images/` into WebDataset shards
 * in `out/shards/`: `train-000000.tar`, ... (ustar written by modern-tar with a
 * fixed mtime, so the bytes only depend on the data), each sample as
 * `<id>.cls` (label), `<id>.json` (the tabular features by column name) and
 * `<id>.png`; a sidecar index `<shard>.idx.json` (core's `encodeTarIndex` of
 * core's `ustarLayout`, every header checked where the layout puts it) so the page
 * needs no streaming pass; and `manifest.json` (a core `ShardManifest`, checked by
 * `parseShardManifest`) with every shard's sample count, size and sha256 plus the
 * columns' mean and standard deviation (the CSV source's standardisation).
 */
export async function writeShards(out, shardSize) {
  const {
    checkShardManifestEntry,
    checkUstarLayout,
    encodeTarIndex,
    parseShardManifest,
    ustarLayout,
  } = await shardFormat();
  const dir = join(out, 'shards');
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  const [header, ...rows] = readFileSync(join(out, 'manifest.csv'), 'utf8').trim().split('\n');
  const columns = header.split(',').slice(2, -1);
  const records = rows.map((line) => line.split(','));
  const n = records.length;
  // Population mean and std per column, as CsvImageDataset computes them.
  const mean = columns.map((_, c) => records.reduce((a, r) => a + Number(r[c + 2]), 0) / n);
  const std = columns.map((_, c) => {
    const sq = records.reduce((a, r) => a + (Number(r[c + 2]) - mean[c]) ** 2, 0);
    return Math.sqrt(sq / n) || 1;
  });
  const text = new TextEncoder();
  const mtime = new Date(0);
  /** @type {import('@medfusion/core').ShardManifestEntry[]} */
  const shards = [];
  for (let s = 0; s * shardSize < n; s++) {
    const name = `train-${String(s).padStart(6, '0')}.tar`;
    const entries = [];
    for (const r of records.slice(s * shardSize, (s + 1) * shardSize)) {
      const key = r[1].replace(/\.png$/, '');
      const features = Object.fromEntries(columns.map((col, c) => [col, Number(r[c + 2])]));
      for (const [ext, body] of [
        ['cls', text.encode(r[r.length - 1])],
        ['json', text.encode(JSON.stringify(features))],
        ['png', readFileSync(join(out, 'images', r[1]))],
      ]) {
        entries.push({ header: { name: `${key}.${ext}`, size: body.length, mtime }, body });
      }
    }
    const tar = await packTar(entries);
    const layout = ustarLayout(entries.map((e) => e.header));
    if (tar.length !== layout.size) {
      throw new Error(`${name}: tar of ${tar.length} bytes, the ustar layout says ${layout.size}`);
    }
    checkUstarLayout(tar, layout.members, name);
    const sha256 = createHash('sha256').update(tar).digest('hex');
    writeFileSync(join(dir, name), tar);
    writeFileSync(
      join(dir, `${name}.idx.json`),
      encodeTarIndex(layout.members, { size: tar.length, sha256 }),
    );
    shards.push({ url: name, samples: entries.length / 3, bytes: tar.length, sha256 });
  }
  /** @type {import('@medfusion/core').ShardManifest} */
  const manifest = {
    format: 'medfusion-shards',
    version: 1,
    shards,
    count: n,
    samplesPerShard: shardSize,
    tabular: { columns, mean, std },
  };
  const json = JSON.stringify(manifest);
  for (const [i, e] of parseShardManifest(json, 'manifest.json').shards.entries()) {
    checkShardManifestEntry(e, i, 'manifest.json');
  }
  // Written last: a manifest means the shards are complete.
  writeFileSync(join(dir, 'manifest.json'), json);
  return shards.length;
}

/**
 * Write `count` samples to `out`: `manifest.csv`, `images/<id>.png` and the
 * same samples as tar shards in `shards/`. Returns what it did.
 */
export async function generate({
  count = 10_000,
  out = DEFAULT_DATA_DIR,
  seed = 42,
  shardSize = 1000,
  force = false,
} = {}) {
  const metaPath = join(out, 'meta.json');
  const wanted = { version: VERSION, count, seed, size: SIZE };
  if (!force && existsSync(metaPath)) {
    try {
      const meta = JSON.parse(readFileSync(metaPath, 'utf8'));
      if (JSON.stringify(meta) === JSON.stringify(wanted)) {
        if (shardsUpToDate(out, count, shardSize)) return { skipped: true, out, count };
        await writeShards(out, shardSize);
        return { skipped: false, shardsOnly: true, out, count };
      }
    } catch {
      // unreadable meta: regenerate
    }
  }
  rmSync(out, { recursive: true, force: true });
  mkdirSync(join(out, 'images'), { recursive: true });
  mkdirSync(join(out, 'dicom'), { recursive: true });
  const rand = rng(seed);
  const pixels = new Uint8Array(SIZE * SIZE);
  const lines = ['id,image,age,marker_a,marker_b,bmi,label'];
  const dicomLines = ['url,age,marker_a,marker_b,bmi,label'];
  const study = `2.25.${BigInt(seed) * 1000003n + 7n}`;
  const width = String(count - 1).length;
  for (let i = 0; i < count; i++) {
    const label = rand() < 0.5 ? 1 : 0;
    scan(rand, label, pixels);
    const name = `${String(i).padStart(width, '0')}.png`;
    const png = encode({ width: SIZE, height: SIZE, data: pixels, depth: 8, channels: 1 });
    writeFileSync(join(out, 'images', name), png);
    const record = features(rand, label);
    lines.push([i, name, ...record, label].join(','));
    const dcm = name.replace(/\.png$/, '.dcm');
    writeFileSync(join(out, 'dicom', dcm), dicomFile(pixels, record[0], study, i + 1));
    dicomLines.push([dcm, ...record, label].join(','));
  }
  writeFileSync(join(out, 'manifest.csv'), `${lines.join('\n')}\n`);
  writeFileSync(join(out, 'dicom', 'manifest.csv'), `${dicomLines.join('\n')}\n`);
  await writeShards(out, shardSize);
  writeFileSync(metaPath, JSON.stringify(wanted));
  return { skipped: false, out, count };
}

function parseArgs(argv) {
  const opts = {};
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if (arg === '--force') opts.force = true;
    else if (arg === '--count') opts.count = Number(argv[++i]);
    else if (arg === '--seed') opts.seed = Number(argv[++i]);
    else if (arg === '--shard-size') opts.shardSize = Number(argv[++i]);
    else if (arg === '--out') opts.out = resolve(argv[++i]);
    else throw new RangeError(`unknown argument ${JSON.stringify(arg)}`);
  }
  if (opts.count !== undefined && !(Number.isInteger(opts.count) && opts.count > 0)) {
    throw new RangeError(`--count must be a positive integer, got ${opts.count}`);
  }
  if (opts.shardSize !== undefined && !(Number.isInteger(opts.shardSize) && opts.shardSize > 0)) {
    throw new RangeError(`--shard-size must be a positive integer, got ${opts.shardSize}`);
  }
  if (opts.seed !== undefined && !Number.isInteger(opts.seed)) {
    throw new RangeError(`--seed must be an integer, got ${opts.seed}`);
  }
  return opts;
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const started = Date.now();
  const r = await generate(parseArgs(process.argv.slice(2)));
  const secs = ((Date.now() - started) / 1000).toFixed(1);
  console.log(
    r.skipped
      ? `[demo data] ${r.count} samples already in ${r.out}`
      : `[demo data] wrote ${r.shardsOnly ? 'shards of ' : ''}${r.count} samples to ${r.out} in ${secs} s`,
  );
}
