// Runs in Chromium (driven by bench/dicom.ts): decode throughput per transfer syntax in the
// page's thread and in a pool of 2 workers; an epoch from Orthanc vs the same from the disk tier.
// Both decode paths start from the file's bytes already in memory (fetched once per realm) and end
// with the same thing on the page: a Float32Array [H, W, C]. The pool lives for the whole decode
// section, as the page's realm does: both paths keep their compiled WASM and JIT across rounds.
import { createCachedDataset, createWorkerExecutor, OpfsStore } from '@medfusion/web';
import { DicomDecoder, DicomWebSource } from '@medfusion/web/dicom';
import type { WorkerFrame } from './decode.worker.js';

/** What the Node driver passes in. */
export interface DicomBenchConfig {
  /** `{ syntax label, file URL }` per decode row. */
  files: { syntax: string; url: string }[];
  /** Frames decoded per measurement. */
  frames: number;
  /** Rounds (median reported). */
  rounds: number;
  /** Frames each thread decodes before the first round (JIT, WASM compile). */
  warmup: number;
  /** DICOMweb root (through the CORS proxy) and the study of the epoch rows, or null. */
  dicomWeb: { root: string; study: string } | null;
}

/** One measured row (medians). */
export type DicomRowResult =
  | {
      section: 'decode';
      syntax: string;
      path: 'in-thread' | 'workers';
      framesPerSec: number;
      spread: number;
      /** Median decode time of one frame (inside the worker for the workers path). */
      decodeMs: number;
      /** Workers path: share of the 2 workers' wall time spent decoding (1 = both always busy). */
      busy?: number;
      /** Workers path: frames each worker decoded in the median round. */
      perWorker?: number[];
    }
  | { section: 'epoch'; source: 'orthanc' | 'disk'; samplesPerSec: number; spread: number };

function median(xs: number[]): { value: number; spread: number } {
  const s = [...xs].sort((a, b) => a - b);
  return {
    value: s[s.length >> 1] as number,
    spread: (s[s.length - 1] as number) - (s[0] as number),
  };
}

interface Measured {
  framesPerSec: number;
  decodeMs: number;
  busy?: number;
  perWorker?: number[];
}

function checkImage(data: unknown, shape: readonly number[], size: number): void {
  if (!(data instanceof Float32Array) || data.length !== size || shape.length !== 3) {
    throw new Error(`decode gave ${String(data)} of shape ${String(shape)}, not [H, W, C] floats`);
  }
}

async function inThread(decoder: DicomDecoder, bytes: Uint8Array, frames: number, size: number) {
  const times: number[] = [];
  const t0 = performance.now();
  for (let i = 0; i < frames; i++) {
    const t = performance.now();
    const { image } = await decoder.decode(bytes);
    times.push(performance.now() - t);
    checkImage(image.data, image.shape, size);
  }
  const wall = performance.now() - t0;
  return { framesPerSec: frames / (wall / 1000), decodeMs: median(times).value };
}

type Pool = ReturnType<typeof createWorkerExecutor<WorkerFrame>>;

async function workers(pool: Pool, file: number, frames: number, size: number): Promise<Measured> {
  const signal = new AbortController().signal;
  const t0 = performance.now();
  const out = await Promise.all(Array.from({ length: frames }, () => pool.run(file, signal)));
  const wall = performance.now() - t0;
  const per = new Map<number, number>();
  let work = 0;
  for (const r of out) {
    checkImage(r.image.data, r.image.shape, size);
    work += r.workMs;
    per.set(r.workerId, (per.get(r.workerId) ?? 0) + 1);
  }
  return {
    framesPerSec: frames / (wall / 1000),
    decodeMs: median(out.map((r) => r.workMs)).value,
    busy: work / (2 * wall),
    perWorker: [...per.values()],
  };
}

/** Frames/s of the pool with at most `window` calls in flight (a prefetch engine's numWorkers). */
async function windowed(pool: Pool, file: number, frames: number, window: number): Promise<number> {
  const signal = new AbortController().signal;
  let next = 0;
  const t0 = performance.now();
  await Promise.all(
    Array.from({ length: window }, async () => {
      while (next < frames) {
        next++;
        await pool.run(file, signal);
      }
    }),
  );
  return frames / ((performance.now() - t0) / 1000);
}

/** The old workers path: the frame is decoded but only its length comes back (less work than in-thread). */
async function lengthOnly(pool: Pool, index: number, frames: number): Promise<number> {
  const signal = new AbortController().signal;
  const t0 = performance.now();
  await Promise.all(Array.from({ length: frames }, () => pool.run(index, signal)));
  return frames / ((performance.now() - t0) / 1000);
}

/** Both workers started, then `n` frames decoded by each (in flight at once: least-busy dispatch). */
async function warmPool(pool: Pool, file: number, n: number): Promise<void> {
  while (pool.stats().readyWorkers < 2) await new Promise((r) => setTimeout(r, 5));
  const signal = new AbortController().signal;
  await Promise.all(Array.from({ length: 2 * n }, () => pool.run(file, signal)));
}

async function epochs(root: string, study: string): Promise<{ orthanc: number; disk: number }> {
  const dir = `bench-dicom-${Math.random().toString(36).slice(2)}`;
  const store = new OpfsStore({ dir });
  const source = await DicomWebSource.open({ root, study, store });
  const ds = createCachedDataset(source, {
    cacheType: 'both',
    cacheSize: 2,
    prefetchSize: 8,
    store,
    fingerprint: source.fingerprint,
  });
  const order = Array.from({ length: source.length }, (_, i) => i);
  ds.setPlan([...order, ...order]);
  const run = async () => {
    const t0 = performance.now();
    for (const i of order) await ds.get(i);
    return order.length / ((performance.now() - t0) / 1000);
  };
  const orthanc = await run();
  await ds.flush();
  const disk = await run();
  await ds.close();
  await store.close();
  await (await navigator.storage.getDirectory())
    .removeEntry(dir, { recursive: true })
    .catch(() => {});
  return { orthanc, disk };
}

/** Round trip of a call that decodes nothing but returns a frame-sized Float32Array, 1 and 2 in flight. */
async function overhead(pool: Pool, size: number, calls: number): Promise<string> {
  const signal = new AbortController().signal;
  const t0 = performance.now();
  for (let i = 0; i < calls; i++) await pool.run(size, signal);
  const serial = (performance.now() - t0) / calls;
  const t1 = performance.now();
  await Promise.all(Array.from({ length: calls }, () => pool.run(size, signal)));
  const batch = (performance.now() - t1) / calls;
  return `call overhead (${size} floats): ${serial.toFixed(3)} ms serial, ${batch.toFixed(3)} ms/call with ${calls} in flight`;
}

function startPool(cfg: DicomBenchConfig): Pool {
  return createWorkerExecutor<WorkerFrame>({
    worker: () =>
      new Worker(new URL('./decode.worker.ts', import.meta.url), {
        type: 'module',
        name: JSON.stringify(cfg.files.map((f) => f.url)),
      }),
    poolSize: 2,
  });
}

/**
 * What a pool started per measurement pays before its first frame: the workers' start, then the
 * first frame on each (module + WASM compile, cold JIT, file fetch), 2 calls on 2 ready workers.
 */
async function coldStart(cfg: DicomBenchConfig, file: number): Promise<string> {
  const t0 = performance.now();
  const pool = startPool(cfg);
  try {
    while (pool.stats().readyWorkers < 2) await new Promise((r) => setTimeout(r, 1));
    const t1 = performance.now();
    const signal = new AbortController().signal;
    await Promise.all([pool.run(file, signal), pool.run(file, signal)]);
    const t2 = performance.now();
    return `${cfg.files[file]?.syntax}: a fresh pool takes ${(t1 - t0).toFixed(0)} ms to start 2 workers, then ${(t2 - t1).toFixed(0)} ms for their first frames`;
  } finally {
    await pool.close();
  }
}

async function decodeRows(cfg: DicomBenchConfig): Promise<DicomRowResult[]> {
  const rows: DicomRowResult[] = [];
  const pool = startPool(cfg);
  const decoder = new DicomDecoder();
  try {
    for (const [file, f] of cfg.files.entries()) {
      const bytes = new Uint8Array(await (await fetch(f.url)).arrayBuffer());
      const size = (await decoder.decode(bytes)).image.data.length;
      for (let i = 1; i < cfg.warmup; i++) await decoder.decode(bytes);
      console.log(await coldStart(cfg, file));
      await warmPool(pool, file, cfg.warmup);
      if (file === 0) {
        await overhead(pool, size, 20);
        console.log(await overhead(pool, size, 100));
        console.log(await overhead(pool, 2 * cfg.files.length + 16, 100));
      }
      const a: Measured[] = [];
      const b: Measured[] = [];
      for (let r = 0; r < cfg.rounds; r++) {
        // alternate which path goes first
        if (r % 2 === 0) {
          a.push(await inThread(decoder, bytes, cfg.frames, size));
          b.push(await workers(pool, file, cfg.frames, size));
        } else {
          b.push(await workers(pool, file, cfg.frames, size));
          a.push(await inThread(decoder, bytes, cfg.frames, size));
        }
      }
      const fps: string[] = [];
      for (const w of [1, 2, 4, 8]) {
        fps.push(`${w}: ${(await windowed(pool, file, cfg.frames, w)).toFixed(0)}`);
      }
      console.log(`${f.syntax}: workers frames/s by calls in flight, ${fps.join(', ')}`);
      console.log(
        `${f.syntax}: workers returning only the length (the old bench): ${(await lengthOnly(pool, cfg.files.length + file, cfg.frames)).toFixed(0)} frames/s`,
      );
      for (const [path, ms] of [
        ['in-thread', a],
        ['workers', b],
      ] as const) {
        const m = median(ms.map((x) => x.framesPerSec));
        const mid = ms.find((x) => x.framesPerSec === m.value) as Measured;
        rows.push({
          section: 'decode',
          syntax: f.syntax,
          path,
          framesPerSec: m.value,
          spread: m.spread,
          decodeMs: median(ms.map((x) => x.decodeMs)).value,
          ...(mid.busy === undefined ? {} : { busy: mid.busy, perWorker: mid.perWorker }),
        });
      }
    }
  } finally {
    await pool.close();
  }
  return rows;
}

async function runBench(cfg: DicomBenchConfig): Promise<DicomRowResult[]> {
  const rows = await decodeRows(cfg);
  if (cfg.dicomWeb) {
    const o: number[] = [];
    const d: number[] = [];
    for (let r = 0; r < cfg.rounds; r++) {
      const e = await epochs(cfg.dicomWeb.root, cfg.dicomWeb.study);
      o.push(e.orthanc);
      d.push(e.disk);
    }
    const mo = median(o);
    const md = median(d);
    rows.push({ section: 'epoch', source: 'orthanc', samplesPerSec: mo.value, spread: mo.spread });
    rows.push({ section: 'epoch', source: 'disk', samplesPerSec: md.value, spread: md.spread });
  }
  return rows;
}

(window as unknown as { runBench: typeof runBench }).runBench = runBench;
(document.getElementById('status') as HTMLElement).textContent = 'ready';
