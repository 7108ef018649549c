#!/usr/bin/env node
// Generates the demo's synthetic multimodal "medical" data set, deterministically
// from a seed: N grayscale 64×64 PNG scans with a lesion-like blob whose size and
// contrast depend on the label, and a CSV manifest whose tabular features (age,
// two marker levels, BMI) are correlated with the label.
//
//   node demo/scripts/generate-data.mjs [--count 10000] [--out demo/.data/synthetic] [--seed 42] [--force]
//
// Skips the work when the folder already holds a complete set with the same
// parameters (a `meta.json` is written last, so an interrupted run is redone).
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { encode } from 'fast-png';

const here = dirname(fileURLToPath(import.meta.url));
/** Where `npm run demo` keeps its data (git-ignored). */
export const DEFAULT_DATA_DIR = resolve(here, '..', '.data', 'synthetic');
const SIZE = 64;
const VERSION = 1;

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

/** Tabular features correlated with the label (rounded like a real record). */
function features(rand, label) {
  const age = Math.round(Math.min(90, Math.max(20, 52 + (label ? 9 : -4) + gauss(rand) * 11)));
  const markerA = Math.max(0, (label ? 6.5 : 3.2) + gauss(rand) * 1.8);
  const markerB = Math.max(0, (label ? 14 : 9) + gauss(rand) * 4);
  const bmi = 18 + rand() * 14 + (label ? 1.5 : 0);
  return [age, markerA.toFixed(2), markerB.toFixed(2), bmi.toFixed(1)];
}

/**
 * Write `count` samples to `out`: `manifest.csv` and `images/<id>.png`.
 * Returns what it did.
 */
export function generate({
  count = 10_000,
  out = DEFAULT_DATA_DIR,
  seed = 42,
  force = false,
} = {}) {
  const metaPath = join(out, 'meta.json');
  const wanted = { version: VERSION, count, seed, size: SIZE };
  if (!force && existsSync(metaPath)) {
    try {
      const meta = JSON.parse(readFileSync(metaPath, 'utf8'));
      if (JSON.stringify(meta) === JSON.stringify(wanted)) return { skipped: true, out, count };
    } catch {
      // unreadable meta: regenerate
    }
  }
  rmSync(out, { recursive: true, force: true });
  mkdirSync(join(out, 'images'), { recursive: true });
  const rand = rng(seed);
  const pixels = new Uint8Array(SIZE * SIZE);
  const lines = ['id,image,age,marker_a,marker_b,bmi,label'];
  const width = String(count - 1).length;
  for (let i = 0; i < count; i++) {
    const label = rand() < 0.5 ? 1 : 0;
    scan(rand, label, pixels);
    const name = `${String(i).padStart(width, '0')}.png`;
    const png = encode({ width: SIZE, height: SIZE, data: pixels, depth: 8, channels: 1 });
    writeFileSync(join(out, 'images', name), png);
    lines.push([i, name, ...features(rand, label), label].join(','));
  }
  writeFileSync(join(out, 'manifest.csv'), `${lines.join('\n')}\n`);
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
    else if (arg === '--out') opts.out = resolve(argv[++i]);
    else throw new RangeError(`unknown argument ${JSON.stringify(arg)}`);
  }
  if (opts.count !== undefined && !(Number.isInteger(opts.count) && opts.count > 0)) {
    throw new RangeError(`--count must be a positive integer, got ${opts.count}`);
  }
  if (opts.seed !== undefined && !Number.isInteger(opts.seed)) {
    throw new RangeError(`--seed must be an integer, got ${opts.seed}`);
  }
  return opts;
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const started = Date.now();
  const r = generate(parseArgs(process.argv.slice(2)));
  const secs = ((Date.now() - started) / 1000).toFixed(1);
  console.log(
    r.skipped
      ? `[demo data] ${r.count} samples already in ${r.out}`
      : `[demo data] wrote ${r.count} samples to ${r.out} in ${secs} s`,
  );
}
