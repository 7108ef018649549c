// `pnpm bench lru [--ops N] [--reps N]`: our LRUCache against lru-cache 11, same process.
// Workload: 80 % get / 20 % set, Zipf(s = 1) keys over 100,000 distinct keys, capacity 10,000,
// 1,000,000 operations per run; once with string keys, once with integer keys. The operation
// and key sequences are precomputed (seeded) outside the timed region; repetitions alternate
// the competitors and each gets a fresh cache. We report the median ops/s of each (wall time and
// this process's CPU time) and, as the ratio, the median over back-to-back pairs of the CPU-time
// throughput ratio: on a shared, loaded machine wall time mostly measures the neighbours.
import { LRUCache } from '@medfusion/core';
import { LRUCache as IsaacsLRU } from 'lru-cache';
import { numArg } from './_args.js';
import { median } from './_stats.js';

const OPS = Math.floor(numArg('ops', 1_000_000));
const REPS = Math.floor(numArg('reps', 9));
const DISTINCT = 100_000;
const CAPACITY = 10_000;
const SET_SHARE = 0.2;
const ZIPF_S = 1;
const SEED = 0x5eed;

/** mulberry32: small, fast, seeded. */
function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Key ids (0..DISTINCT-1) drawn from Zipf(s) by inverse CDF; ranks shuffled onto ids. */
function zipfSequence(n: number, rand: () => number): Int32Array {
  const cdf = new Float64Array(DISTINCT);
  let sum = 0;
  for (let r = 0; r < DISTINCT; r++) {
    sum += 1 / (r + 1) ** ZIPF_S;
    cdf[r] = sum;
  }
  for (let r = 0; r < DISTINCT; r++) cdf[r] = cdf[r]! / sum;
  const rankToId = new Int32Array(DISTINCT);
  for (let i = 0; i < DISTINCT; i++) rankToId[i] = i;
  for (let i = DISTINCT - 1; i > 0; i--) {
    const j = Math.floor(rand() * (i + 1));
    const t = rankToId[i]!;
    rankToId[i] = rankToId[j]!;
    rankToId[j] = t;
  }
  const out = new Int32Array(n);
  for (let i = 0; i < n; i++) {
    const u = rand();
    let lo = 0;
    let hi = DISTINCT - 1;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (cdf[mid]! < u) lo = mid + 1;
      else hi = mid;
    }
    out[i] = rankToId[lo]!;
  }
  return out;
}

const rand = prng(SEED);
const ids = zipfSequence(OPS, rand);
const isSet = new Uint8Array(OPS);
for (let i = 0; i < OPS; i++) isSet[i] = rand() < SET_SHARE ? 1 : 0;
const names: string[] = [];
for (let i = 0; i < DISTINCT; i++) names.push(`key:${i}`);
const stringKeys: string[] = new Array<string>(OPS);
for (let i = 0; i < OPS; i++) stringKeys[i] = names[ids[i]!]!;
const intKeys: number[] = Array.from(ids);

// One loop per competitor and key type keeps every call site monomorphic.
function ourStrings(): number {
  const c = new LRUCache<string, number>({ capacity: CAPACITY });
  let found = 0;
  cpuStart = process.cpuUsage();
  const t0 = performance.now();
  for (let i = 0; i < OPS; i++) {
    const k = stringKeys[i]!;
    if (isSet[i] === 1) c.set(k, i);
    else if (c.get(k) !== undefined) found++;
  }
  return finish(t0, found);
}
function theirStrings(): number {
  const c = new IsaacsLRU<string, number>({ max: CAPACITY });
  let found = 0;
  cpuStart = process.cpuUsage();
  const t0 = performance.now();
  for (let i = 0; i < OPS; i++) {
    const k = stringKeys[i]!;
    if (isSet[i] === 1) c.set(k, i);
    else if (c.get(k) !== undefined) found++;
  }
  return finish(t0, found);
}
function ourInts(): number {
  const c = new LRUCache<number, number>({ capacity: CAPACITY });
  let found = 0;
  cpuStart = process.cpuUsage();
  const t0 = performance.now();
  for (let i = 0; i < OPS; i++) {
    const k = intKeys[i]!;
    if (isSet[i] === 1) c.set(k, i);
    else if (c.get(k) !== undefined) found++;
  }
  return finish(t0, found);
}
function theirInts(): number {
  const c = new IsaacsLRU<number, number>({ max: CAPACITY });
  let found = 0;
  cpuStart = process.cpuUsage();
  const t0 = performance.now();
  for (let i = 0; i < OPS; i++) {
    const k = intKeys[i]!;
    if (isSet[i] === 1) c.set(k, i);
    else if (c.get(k) !== undefined) found++;
  }
  return finish(t0, found);
}

let lastFound = 0;
let lastCpuOps = 0;
let cpuStart = process.cpuUsage();
function finish(t0: number, found: number): number {
  const ms = performance.now() - t0;
  const cpu = process.cpuUsage(cpuStart);
  lastFound = found;
  lastCpuOps = OPS / ((cpu.user + cpu.system) / 1e6);
  return OPS / (ms / 1000);
}

interface Row {
  keys: string;
  impl?: string;
  /** Median ops per second of wall time. */
  opsPerSec?: number;
  /** Median ops per second of this process's CPU time (insensitive to other processes). */
  opsPerCpuSec?: number;
  getHitRate?: number;
  /** Median of the per-pair ratios of CPU-time throughput, medfusion / lru-cache. */
  ratio?: number;
  /** The same from wall time. */
  wallRatio?: number;
}
const rows: Row[] = [];
const getCount = OPS - isSet.reduce((a, b) => a + b, 0);

interface Sample {
  wall: number;
  cpu: number;
  found: number;
}
function measure(fn: () => number): Sample {
  const wall = fn();
  return { wall, cpu: lastCpuOps, found: lastFound };
}

for (const [keys, ours, theirs] of [
  ['string', ourStrings, theirStrings],
  ['integer', ourInts, theirInts],
] as const) {
  // Warm-up (JIT) once each, then alternate which competitor goes first.
  ours();
  theirs();
  const a: Sample[] = [];
  const b: Sample[] = [];
  for (let r = 0; r < REPS; r++) {
    if (r % 2 === 0) {
      a.push(measure(ours));
      b.push(measure(theirs));
    } else {
      b.push(measure(theirs));
      a.push(measure(ours));
    }
  }
  for (const [impl, xs] of [
    ['medfusion', a],
    ['lru-cache@11', b],
  ] as const) {
    rows.push({
      keys,
      impl,
      opsPerSec: Math.round(median(xs.map((x) => x.wall))),
      opsPerCpuSec: Math.round(median(xs.map((x) => x.cpu))),
      getHitRate: (xs[0]?.found ?? 0) / getCount,
    });
  }
  const ratio = median(a.map((x, i) => x.cpu / (b[i]?.cpu ?? Number.NaN)));
  const wallRatio = median(a.map((x, i) => x.wall / (b[i]?.wall ?? Number.NaN)));
  rows.push({ keys, ratio: Number(ratio.toFixed(3)), wallRatio: Number(wallRatio.toFixed(3)) });
}

console.log(
  `LRU: ${OPS.toLocaleString('en')} ops (80% get / 20% set), Zipf s=${ZIPF_S} over ${DISTINCT.toLocaleString('en')} keys, capacity ${CAPACITY.toLocaleString('en')}; median of ${REPS} alternating runs`,
);
console.log(
  'ratio = median over back-to-back pairs of (medfusion / lru-cache) throughput per CPU second',
);
const head = `${'keys'.padEnd(8)} ${'impl'.padEnd(14)} ${'ops/s (wall)'.padStart(14)} ${'ops/CPU-s'.padStart(14)} ${'get hit rate'.padStart(13)}`;
console.log(head);
for (const r of rows) {
  if (r.ratio !== undefined) {
    console.log(
      `${r.keys.padEnd(8)} ${'ratio'.padEnd(14)} ${`${(r.wallRatio ?? 0).toFixed(2)}x`.padStart(14)} ${`${r.ratio.toFixed(2)}x`.padStart(14)}`,
    );
  } else {
    console.log(
      `${r.keys.padEnd(8)} ${(r.impl ?? '').padEnd(14)} ${(r.opsPerSec ?? 0).toLocaleString('en').padStart(14)} ${(r.opsPerCpuSec ?? 0).toLocaleString('en').padStart(14)} ${(r.getHitRate ?? 0).toFixed(3).padStart(13)}`,
    );
  }
}
console.log(JSON.stringify({ bench: 'lru', rows }));
