// Runs in Chromium (driven by bench/dicom.ts): decode throughput per transfer syntax in the
// page's thread and in a pool of 2 workers; an epoch from Orthanc vs the same from the disk tier.
import { createCachedDataset, createWorkerExecutor, OpfsStore } from '@medfusion/web';
import { DicomDecoder, DicomWebSource } from '@medfusion/web/dicom';

/** What the Node driver passes in. */
export interface DicomBenchConfig {
  /** `{ syntax label, file URL }` per decode row. */
  files: { syntax: string; url: string }[];
  /** Frames decoded per measurement. */
  frames: number;
  /** Rounds (median reported). */
  rounds: number;
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
    }
  | { section: 'epoch'; source: 'orthanc' | 'disk'; samplesPerSec: number; spread: number };

function median(xs: number[]): { value: number; spread: number } {
  const s = [...xs].sort((a, b) => a - b);
  return {
    value: s[s.length >> 1] as number,
    spread: (s[s.length - 1] as number) - (s[0] as number),
  };
}

async function inThread(url: string, frames: number): Promise<number> {
  const bytes = new Uint8Array(await (await fetch(url)).arrayBuffer());
  const decoder = new DicomDecoder();
  await decoder.decode(bytes); // warm up (WASM compile)
  const t0 = performance.now();
  for (let i = 0; i < frames; i++) await decoder.decode(bytes);
  return frames / ((performance.now() - t0) / 1000);
}

async function workers(url: string, frames: number): Promise<number> {
  const executor = createWorkerExecutor<number>({
    worker: () =>
      new Worker(new URL('./decode.worker.ts', import.meta.url), { type: 'module', name: url }),
    poolSize: 2,
    concurrency: 2,
  });
  const signal = new AbortController().signal;
  try {
    await Promise.all([executor.run(0, signal), executor.run(1, signal)]); // warm up both
    const t0 = performance.now();
    await Promise.all(Array.from({ length: frames }, (_, i) => executor.run(i, signal)));
    return frames / ((performance.now() - t0) / 1000);
  } finally {
    await executor.close();
  }
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

async function runBench(cfg: DicomBenchConfig): Promise<DicomRowResult[]> {
  const rows: DicomRowResult[] = [];
  for (const f of cfg.files) {
    const a: number[] = [];
    const b: number[] = [];
    for (let r = 0; r < cfg.rounds; r++) {
      // alternate which path goes first
      if (r % 2 === 0) {
        a.push(await inThread(f.url, cfg.frames));
        b.push(await workers(f.url, cfg.frames));
      } else {
        b.push(await workers(f.url, cfg.frames));
        a.push(await inThread(f.url, cfg.frames));
      }
    }
    const ma = median(a);
    const mb = median(b);
    rows.push({
      section: 'decode',
      syntax: f.syntax,
      path: 'in-thread',
      framesPerSec: ma.value,
      spread: ma.spread,
    });
    rows.push({
      section: 'decode',
      syntax: f.syntax,
      path: 'workers',
      framesPerSec: mb.value,
      spread: mb.spread,
    });
  }
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
