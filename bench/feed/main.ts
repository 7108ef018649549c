// The page of `pnpm bench feed` (driver: bench/feed.ts): one tier's round, its library pipeline
// cold then warm (DataLoader, batch 64, 224x224x3 uint8 -> float32 with ImageNet's mean/std,
// taken by consume.ts) and its ceiling measured the same way in the same page.
import { type Dataset, decodeNpy, fromArray, fromLoader } from '@medfusion/core';
import {
  createCachedDataset,
  createWorkerExecutor,
  OpfsStore,
  WebDatasetSource,
} from '@medfusion/web';
import {
  ceilingPass,
  consumeEpoch,
  feedLoader,
  permutation,
  TO_FLOAT32,
  TO_FLOAT32_UNIT,
} from './consume.js';
import {
  BATCH,
  type Member,
  type Pass,
  SAMPLE_BYTES,
  type TierConfig,
  type TierResult,
  WORKERS,
} from './types.js';

type Image = { image: Uint8Array | Float32Array; label: number };

const utf8 = new TextDecoder();
const OPFS_DIR = 'bench-feed-opfs';
const FINGERPRINT = 'bench-feed@1';

let memorySamples: Image[] | undefined;
/** `n` seeded 224x224x3 uint8 images, each its own buffer (as a hot cache holds them). */
function synthetic(n: number): Image[] {
  if (memorySamples?.length === n) return memorySamples;
  memorySamples = Array.from({ length: n }, (_, i) => {
    const image = new Uint8Array(SAMPLE_BYTES);
    let x = (i * 2654435761) >>> 0 || 1;
    for (let k = 0; k < image.length; k++) {
      x ^= x << 13;
      x ^= x >>> 17;
      x ^= x << 5;
      image[k] = x & 0xff;
    }
    return { image, label: i % 10 };
  });
  return memorySamples;
}

/**
 * Two library epochs of one pipeline: cold (fresh) then warm (its second epoch), normalised as
 * the samples need: uint8 images scaled by 1/255, `floats` (in [0, 1], DICOM's) not. With the
 * driver's `--dtype uint8`, uint8 images stay uint8 (no toFloat32: the CPU side of the WebGPU
 * recipe, where the GPU normalises); floats are normalised as ever.
 */
async function coldWarm(
  dataset: Dataset<Image>,
  floats = false,
): Promise<{ cold: Pass; warm: Pass }> {
  const toFloat32 = floats ? TO_FLOAT32_UNIT : batchDtype === 'uint8' ? undefined : TO_FLOAT32;
  const loader = feedLoader(dataset, toFloat32);
  const cold = await consumeEpoch(loader);
  const warm = await consumeEpoch(loader, tracing);
  return { cold, warm };
}

/** The better of two passes of a ceiling (its first may pay for warming up, as cold does). */
async function best(run: () => Promise<Pass>): Promise<Pass> {
  const a = await run();
  const b = await run();
  return a.ms <= b.ms ? a : b;
}

async function memoryTier(cfg: TierConfig): Promise<Omit<TierResult, 'tier'>> {
  const samples = synthetic(cfg.samples);
  const { cold, warm } = await coldWarm(fromArray(samples));
  const batch = new Uint8Array(BATCH * SAMPLE_BYTES);
  const order = permutation(cfg.samples, 11);
  const ceiling = await best(() =>
    ceilingPass(cfg.samples, async () => {
      let k = 0;
      for (const i of order) {
        batch.set((samples[i] as Image).image as Uint8Array, k * SAMPLE_BYTES);
        k = (k + 1) % BATCH;
      }
    }),
  );
  return { cold, warm, ceiling };
}

let opfsFilled = 0;
let ceilingWorker: Worker | undefined;
function askCeilingWorker(msg: unknown): Promise<number> {
  ceilingWorker ??= new Worker(new URL('./opfsCeiling.worker.ts', import.meta.url), {
    type: 'module',
  });
  const w = ceilingWorker;
  return new Promise((resolve, reject) => {
    w.onmessage = (e: MessageEvent<{ ms: number }>) => resolve(e.data.ms);
    w.onerror = (e) => reject(new Error(e.message));
    w.postMessage(msg);
  });
}

async function opfsTier(cfg: TierConfig): Promise<Omit<TierResult, 'tier'>> {
  const offline = fromLoader<Image>(cfg.samples, () => {
    throw new Error('offline: the disk tier must answer every read');
  });
  if (opfsFilled !== cfg.samples) {
    const root = await navigator.storage.getDirectory();
    await root.removeEntry(OPFS_DIR, { recursive: true }).catch(() => {});
    const store = new OpfsStore({ dir: OPFS_DIR, maxBytes: 4 * 2 ** 30 });
    const fill = createCachedDataset(fromArray(synthetic(cfg.samples)), {
      cacheType: 'none',
      store,
      fingerprint: FINGERPRINT,
    });
    // flushed every 16 samples: a full write-behind queue drops writes
    for (let i = 0; i < cfg.samples; i++) {
      await fill.get(i);
      if (i % 16 === 15) await fill.flush();
    }
    await fill.flush();
    await fill.close();
    await store.close();
    await askCeilingWorker({ cmd: 'fill', n: cfg.samples });
    opfsFilled = cfg.samples;
  }
  // a new store and dataset: a second visit, the source offline
  const store = new OpfsStore({ dir: OPFS_DIR, maxBytes: 4 * 2 ** 30 });
  const ds = createCachedDataset(offline, {
    cacheType: 'prefetch',
    prefetchSize: 2 * BATCH,
    store,
    fingerprint: FINGERPRINT,
  });
  const { cold, warm } = await coldWarm(ds);
  const hits = ds.getCacheStats().diskHits;
  await ds.close();
  await store.close();
  if (hits < 2 * cfg.samples) throw new Error(`opfs: ${hits} disk hits of ${2 * cfg.samples}`);
  const order = permutation(cfg.samples, 11);
  const ceiling = await best(() =>
    ceilingPass(cfg.samples, async () => {
      await askCeilingWorker({ cmd: 'read', order });
    }),
  );
  return { cold, warm, ceiling };
}

/** Where a shard source's loads spent their time (both epochs), ms per load. */
function phasesOf(dataset: WebDatasetSource<Image>, samples: number): TierResult['phases'] {
  const p = dataset.loadPhases();
  if (!p || p.loads < samples) return undefined;
  return { sourceMsPerLoad: p.sourceMs / p.loads, decodeMsPerLoad: p.decodeMs / p.loads };
}

/** Range responses the dev server cut short (retried; printed with the results). */
let shortBodies = 0;

/**
 * One member's bytes by a plain range request. Vite's static server has answered a 206 with
 * an empty body under load: such a response is retried (up to 3 times) and counted.
 */
async function fetchMember(m: Member): Promise<Uint8Array> {
  for (let attempt = 0; ; attempt++) {
    const res = await fetch(m.url, { headers: { Range: `bytes=${m.start}-${m.end - 1}` } });
    const bytes = new Uint8Array(await res.arrayBuffer());
    if (res.status === 206 && bytes.length === m.end - m.start) return bytes;
    if (attempt === 3) {
      throw new Error(`${m.url} ${m.start}-${m.end}: HTTP ${res.status}, ${bytes.length} bytes`);
    }
    shortBodies++;
  }
}

/** Plain range fetches of the members, 16 in flight, each set() into one batch buffer. */
async function rangeFetches(members: readonly Member[], order: Uint32Array): Promise<void> {
  const batch = new Uint8Array(BATCH * SAMPLE_BYTES);
  let next = 0;
  let k = 0;
  const lane = async () => {
    while (next < order.length) {
      const bytes = await fetchMember(members[order[next++] as number] as Member);
      const at = k * SAMPLE_BYTES;
      k = (k + 1) % BATCH;
      batch.set(bytes.subarray(0, Math.min(bytes.length, SAMPLE_BYTES)), at);
    }
  };
  await Promise.all(Array.from({ length: 16 }, lane));
}

async function decodedTier(cfg: TierConfig): Promise<Omit<TierResult, 'tier'>> {
  const dataset = await WebDatasetSource.open<Image>({
    manifestUrl: cfg.manifestUrl,
    transform: (sample) => {
      const { npy, cls } = sample.files;
      if (!npy) throw new Error(`${sample.key}: no .npy`);
      const { data } = decodeNpy(npy, sample.key);
      if (!(data instanceof Uint8Array)) throw new Error(`${sample.key}: not uint8`);
      return { image: data, label: cls ? Number(utf8.decode(cls)) : 0 };
    },
  });
  const { cold, warm } = await coldWarm(dataset);
  const phases = phasesOf(dataset, cfg.samples);
  dataset.close();
  const order = permutation(cfg.samples, 11);
  const ceiling = await best(() =>
    ceilingPass(cfg.samples, () => rangeFetches(cfg.members, order)),
  );
  return { cold, warm, ceiling, phases };
}

/**
 * The codec alone on the tier's images in WORKERS workers made by `worker` (images fetched
 * before the clock): they take `{ cmd: 'load', images }` then `{ cmd: 'run' }`.
 */
async function codecCeiling(members: readonly Member[], worker: () => Worker): Promise<Pass> {
  // 16 requests in flight, each member's length checked (a short body would not decode)
  const images: Uint8Array[] = new Array(members.length);
  let next = 0;
  const lane = async () => {
    while (next < members.length) {
      const i = next++;
      images[i] = await fetchMember(members[i] as Member);
    }
  };
  await Promise.all(Array.from({ length: 16 }, lane));
  const workers = Array.from({ length: WORKERS }, worker);
  const ask = (w: Worker, msg: unknown) =>
    new Promise<void>((resolve, reject) => {
      w.onmessage = (e: MessageEvent<{ error?: string }>) =>
        e.data.error === undefined ? resolve() : reject(new Error(e.data.error));
      w.onerror = (e) => reject(new Error(e.message));
      w.postMessage(msg);
    });
  try {
    await Promise.all(
      workers.map((w, i) =>
        ask(w, { cmd: 'load', images: images.filter((_, j) => j % WORKERS === i) }),
      ),
    );
    return await best(() =>
      ceilingPass(members.length, () =>
        Promise.all(workers.map((w) => ask(w, { cmd: 'run' }))).then(() => {}),
      ),
    );
  } finally {
    for (const w of workers) w.terminate();
  }
}

/**
 * The decode workers and the codec ceiling's workers of the encoded tiers, and whether their
 * samples are floats: the image workers return uint8; DICOM's floats in [0, 1], or uint8
 * (DicomDecoder's dtype) with the driver's --dtype uint8.
 */
const ENCODED = {
  images: {
    decode: () => new Worker(new URL('./decode.worker.ts', import.meta.url), { type: 'module' }),
    codec: () => new Worker(new URL('./codec.worker.ts', import.meta.url), { type: 'module' }),
    floats: false,
  },
  dicom: {
    decode: () => {
      const worker = new Worker(new URL('./dicom.worker.ts', import.meta.url), { type: 'module' });
      worker.postMessage({ dicomDtype: batchDtype }); // before the pool's first call
      return worker;
    },
    codec: () => new Worker(new URL('./dicomCodec.worker.ts', import.meta.url), { type: 'module' }),
    get floats() {
      return batchDtype === 'float32';
    },
  },
};

async function encodedTier(cfg: TierConfig): Promise<Omit<TierResult, 'tier'>> {
  const workers = cfg.tier === 'dicom' ? ENCODED.dicom : ENCODED.images;
  const executor = createWorkerExecutor<Image>({
    worker: workers.decode,
    poolSize: WORKERS,
    concurrency: 16,
  });
  const dataset = await WebDatasetSource.open<Image>({
    manifestUrl: cfg.manifestUrl,
    transformExecutor: executor,
  });
  const { cold, warm } = await coldWarm(dataset, workers.floats);
  const phases = phasesOf(dataset, cfg.samples);
  dataset.close();
  await executor.close();
  const ceiling = await codecCeiling(cfg.members, workers.codec);
  return { cold, warm, ceiling, phases };
}

/** Whether this round's warm epochs are traced (the driver's --trace, round 1). */
let tracing = false;
/** The batches' dtype this round (the driver's --dtype). */
let batchDtype: TierConfig['dtype'] = 'float32';

async function runTier(cfg: TierConfig): Promise<TierResult> {
  tracing = cfg.trace;
  batchDtype = cfg.dtype;
  const run =
    cfg.tier === 'memory'
      ? memoryTier
      : cfg.tier === 'opfs'
        ? opfsTier
        : cfg.tier === 'shards-decoded'
          ? decodedTier
          : encodedTier;
  const before = shortBodies;
  const result = await run(cfg);
  if (shortBodies > before)
    console.error(`[bench] ${cfg.tier}: ${shortBodies - before} short range responses retried`);
  return { tier: cfg.tier, ...result };
}

declare global {
  interface Window {
    runTier: typeof runTier;
  }
}
window.runTier = runTier;
