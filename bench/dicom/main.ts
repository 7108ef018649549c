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
  /** Length of one measurement window, ms (each path decodes until it is over). */
  windowMs: number;
  /** Calls in flight per worker on the workers path. */
  inFlight: number;
  /** Rounds: an in-thread and a workers window each, paired (median reported). */
  rounds: number;
  /** Frames each thread decodes before the first round (JIT, WASM compile). */
  warmup: number;
  /** Frames per point of the breakdown's in-flight sweep, or 0 to skip the sweep. */
  breakdownFrames: number;
  /** Measure CPU time per thread class (the Node side exposes `benchCpuMark`). */
  cpu: boolean;
  /** DICOMweb root (through the CORS proxy) and the study of the epoch rows, or null. */
  dicomWeb: { root: string; study: string } | null;
}

/** CPU milliseconds per thread class ({@link import('../_cpu.js').CpuTimes}). */
type CpuMark = () => Promise<Record<string, number>>;

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
      /** Workers path: median of the rounds' workers / in-thread frames/s (each round paired). */
      ratio?: number;
      /** Workers path: the lowest and highest round ratio. */
      ratioRange?: [number, number];
      /** With `cpu`: CPU ms per frame by thread class (median over rounds). */
      cpuMsPerFrame?: Record<string, number>;
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
  /** Frames decoded in the window. */
  frames: number;
  framesPerSec: number;
  decodeMs: number;
  busy?: number;
  perWorker?: number[];
  cpuMsPerFrame?: Record<string, number>;
}

function checkImage(data: unknown, shape: readonly number[], size: number): void {
  if (!(data instanceof Float32Array) || data.length !== size || shape.length !== 3) {
    throw new Error(`decode gave ${String(data)} of shape ${String(shape)}, not [H, W, C] floats`);
  }
}

/** Frames decoded one after another in the page's thread until `windowMs` is over; each dropped. */
async function inThread(
  decoder: DicomDecoder,
  bytes: Uint8Array,
  windowMs: number,
  size: number,
): Promise<Measured> {
  const times: number[] = [];
  const t0 = performance.now();
  let t = t0;
  while (t - t0 < windowMs) {
    const { image } = await decoder.decode(bytes);
    checkImage(image.data, image.shape, size);
    const now = performance.now();
    times.push(now - t);
    t = now;
  }
  return {
    frames: times.length,
    framesPerSec: times.length / ((t - t0) / 1000),
    decodeMs: median(times).value,
  };
}

type Pool = ReturnType<typeof createWorkerExecutor<WorkerFrame>>;

/**
 * Frames decoded by the pool with `inFlight` calls in flight per worker, new calls started until
 * `windowMs` is over, then the calls in flight finished; each frame dropped when it arrives.
 */
async function workers(
  pool: Pool,
  file: number,
  windowMs: number,
  inFlight: number,
  size: number,
): Promise<Measured> {
  const signal = new AbortController().signal;
  const per = new Map<number, number>();
  const work: number[] = [];
  const t0 = performance.now();
  let last = t0;
  const lane = async () => {
    while (performance.now() - t0 < windowMs) {
      const r = await pool.run(file, signal);
      last = performance.now();
      checkImage(r.image.data, r.image.shape, size);
      work.push(r.workMs);
      per.set(r.workerId, (per.get(r.workerId) ?? 0) + 1);
    }
  };
  await Promise.all(Array.from({ length: 2 * inFlight }, lane));
  const wall = last - t0;
  return {
    frames: work.length,
    framesPerSec: work.length / (wall / 1000),
    decodeMs: median(work).value,
    busy: work.reduce((a, b) => a + b, 0) / (2 * wall),
    perWorker: [...per.values()],
  };
}

/** `measure()`, with the CPU each thread class spent per frame when the Node side can tell. */
async function withCpu(measure: () => Promise<Measured>): Promise<Measured> {
  const mark = (window as unknown as { benchCpuMark?: CpuMark }).benchCpuMark;
  const before = await mark?.();
  const m = await measure();
  const after = await mark?.();
  if (before && after) {
    m.cpuMsPerFrame = {};
    for (const k of Object.keys(after)) {
      m.cpuMsPerFrame[k] = ((after[k] as number) - (before[k] as number)) / m.frames;
    }
  }
  return m;
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
        console.log(await overhead(pool, cfg.files.length + 16, 100));
      }
      const a: Measured[] = [];
      const b: Measured[] = [];
      const ratios: number[] = [];
      for (let r = 0; r < cfg.rounds; r++) {
        const one = () => withCpu(() => inThread(decoder, bytes, cfg.windowMs, size));
        const two = () => withCpu(() => workers(pool, file, cfg.windowMs, cfg.inFlight, size));
        // a pair per round, alternating which path goes first
        let x: Measured;
        let y: Measured;
        if (r % 2 === 0) {
          x = await one();
          y = await two();
        } else {
          y = await two();
          x = await one();
        }
        a.push(x);
        b.push(y);
        ratios.push(y.framesPerSec / x.framesPerSec);
      }
      if (cfg.breakdownFrames > 0) {
        const fps: string[] = [];
        for (const w of [1, 2, 4, 8]) {
          fps.push(`${w}: ${(await windowed(pool, file, cfg.breakdownFrames, w)).toFixed(0)}`);
        }
        console.log(`${f.syntax}: workers frames/s by calls in flight, ${fps.join(', ')}`);
      }
      const sorted = [...ratios].sort((p, q) => p - q);
      for (const [path, ms] of [
        ['in-thread', a],
        ['workers', b],
      ] as const) {
        const m = median(ms.map((x) => x.framesPerSec));
        const mid = ms.find((x) => x.framesPerSec === m.value) as Measured;
        const cpus = ms.flatMap((x) => (x.cpuMsPerFrame ? [x.cpuMsPerFrame] : []));
        rows.push({
          section: 'decode',
          syntax: f.syntax,
          path,
          framesPerSec: m.value,
          spread: m.spread,
          decodeMs: median(ms.map((x) => x.decodeMs)).value,
          ...(mid.busy === undefined ? {} : { busy: mid.busy, perWorker: mid.perWorker }),
          ...(path === 'workers'
            ? {
                ratio: median(ratios).value,
                ratioRange: [sorted[0] as number, sorted[sorted.length - 1] as number],
              }
            : {}),
          ...(cpus.length === 0
            ? {}
            : {
                cpuMsPerFrame: Object.fromEntries(
                  Object.keys(cpus[0] as object).map((k) => [
                    k,
                    median(cpus.map((c) => c[k] as number)).value,
                  ]),
                ),
              }),
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
