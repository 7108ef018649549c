import {
  type CachingDataset,
  type CsvImageDataset,
  type CsvImageSample,
  createCachedDataset,
  createWorkerExecutor,
  DataLoader,
  type Dataset,
  type Executor,
  type OpfsStoreUsage,
  type PersistentStore,
  type PlanAware,
  type ReportsLoadPhases,
  shardPlan,
  type TieredCachedDataset,
  type WebDatasetSource,
  type WorkerExecutor,
  type WorkerHostClient,
} from '@medfusion/web';
import type { DicomSource, DicomWebSource } from '@medfusion/web/dicom';
import { type TfDataset, type TfElement, toTfDataset } from '@medfusion/web/tfjs';
import * as tf from '@tensorflow/tfjs';
import { standardAugment } from './augmentation.js';
import { openDiskStore } from './diskEncryption.js';
import { LOADER_WORKER } from './hostedWorkers.js';
import type { Settings } from './settings.js';
import type { DiskUsage, PipelineStats } from './stats.js';

/** Loads each decode worker runs at once (the pool's `concurrency`). */
const WORKER_CONCURRENCY = 16;
/** Disk writes the tier may hold queued (the library default is 64): room for an epoch while reads run. */
const DISK_WRITES_PENDING = 2048;
/** The training loader's seed (shuffle and augmentation). */
export const LOADER_SEED = 7;

/** What the pipeline is built from: the CSV manifest + images, or the tar shards. */
export type PipelineSource = {
  /** Tabular features per sample (the model's second input). */
  features: number;
  /** Names the data set on disk; change it when the data changes. */
  fingerprint: { name: string; version: string };
  /** What the header says about it besides the sample count. */
  detail: string;
} & (
  | {
      /** Manifest + one PNG per sample; decoded in Web Workers when `workers > 0`. */
      kind: 'csv';
      /** The manifest-backed source (training worker). */
      dataset: CsvImageDataset;
    }
  | {
      /** WebDataset tar shards read by range requests; decoded in the training worker. */
      kind: 'shards';
      /** The shards source (transform already yields `{ image, tabular, label }`). */
      dataset: WebDatasetSource<CsvImageSample>;
    }
  | {
      /** The user's own folder, packed into shards in OPFS (ownData.ts), read offline. */
      kind: 'own';
      /** The shards source over OPFS (transform yields `{ image, tabular, label }`). */
      dataset: WebDatasetSource<CsvImageSample>;
    }
  | {
      /** DICOM files + a CSV manifest, decoded by DicomSource in the training worker. */
      kind: 'dicom';
      /** The DICOM source (transform yields `{ image, tabular, label }`). */
      dataset: DicomSource<CsvImageSample>;
    }
  | {
      /** The DICOM files in Orthanc, read by DicomWebSource (QIDO-RS + WADO-RS) on the page's thread. */
      kind: 'dicomweb';
      /** The DICOMweb source (transform yields `{ image, tabular, label }`). */
      dataset: DicomWebSource<CsvImageSample>;
    }
);

/** The first `length` samples' shard sizes (indices are numbered shard by shard). */
function truncatedSizes(sizes: readonly number[], length: number): number[] {
  const out: number[] = [];
  let left = length;
  for (const size of sizes) {
    if (left <= 0) break;
    out.push(Math.min(size, left));
    left -= size;
  }
  return out;
}

/** A built pipeline: source → disk tier → memory cache + prefetch → DataLoader → `fitDataset`. */
export class Pipeline {
  /** The dataset `fitDataset` consumes, instrumented for data-wait time. */
  readonly tfDataset: tf.data.Dataset<tf.TensorContainer>;
  /** Batches per epoch. */
  readonly stepsPerEpoch: number;
  /** Samples per epoch. */
  readonly length: number;
  /** Milliseconds training waited for data (sum over `next()` calls). */
  waitMs = 0;
  /** Samples delivered to training. */
  delivered = 0;
  /** Milliseconds the current epoch's first batch took (the pipeline filling up). */
  firstWaitMs = 0;
  private networkLoads = 0;
  private networkErrors = 0;
  private readonly cached: CachingDataset<CsvImageSample>;
  private readonly tiered: TieredCachedDataset<CsvImageSample> | undefined;
  private readonly executor: WorkerExecutor<CsvImageSample> | undefined;
  private readonly store: PersistentStore | undefined;
  private readonly shards: WebDatasetSource<CsvImageSample> | undefined;

  private constructor(
    source: PipelineSource,
    settings: Settings,
    store: PersistentStore | undefined,
    host: WorkerHostClient,
  ) {
    this.length =
      settings.samples > 0
        ? Math.min(settings.samples, source.dataset.length)
        : source.dataset.length;
    const csv = source.kind === 'csv' ? source.dataset : undefined;
    const shards = source.kind === 'shards' || source.kind === 'own' ? source.dataset : undefined;
    this.shards = shards;
    this.executor =
      csv && settings.workers > 0
        ? createWorkerExecutor<CsvImageSample>({
            // started by the page (trainerLink.ts), not nested in this worker
            worker: () => host.spawn(LOADER_WORKER),
            poolSize: settings.workers,
            concurrency: WORKER_CONCURRENCY,
          })
        : undefined;
    // The first `length` samples of the source, counted as they arrive; the
    // plan and the load phases go on to the source (shards read ahead).
    const whole = source.dataset as Dataset<CsvImageSample> &
      Partial<PlanAware & ReportsLoadPhases>;
    const network: Dataset<CsvImageSample> & PlanAware & ReportsLoadPhases = {
      length: this.length,
      get: (index, opts) => this.count(whole.get(index, opts)),
      setPlan: (order) => whole.setPlan?.(order),
      loadPhases: () => whole.loadPhases?.(),
    };
    // CSV decoding runs on the decode pool when there is one: the library runs the
    // source's loads there (the disk tier's too) and reads the pool's load phases.
    const pool = this.executor;
    const executor: (Executor<CsvImageSample> & ReportsLoadPhases) | undefined = pool && {
      run: (index, signal, input, options) => this.count(pool.run(index, signal, input, options)),
      loadPhases: () => pool.loadPhases(),
    };
    this.store = store;
    const common = {
      cacheType: settings.strategy === 'both-disk' ? ('both' as const) : settings.strategy,
      cacheSize: settings.cacheSize,
      prefetchSize: settings.prefetchSize,
      // numWorkers is loads in flight, not Web Workers (each worker overlaps the
      // fetches of WORKER_CONCURRENCY loads): 'auto' by default, tuned from the
      // measured latency and data stall (issue 15); a number means exactly that
      numWorkers: settings.loadsInFlight,
      ...(executor ? { executor } : {}),
    };
    // Three tiers with the disk: memory → disk (OPFS) → network; the fingerprint
    // keys the samples on disk to this version of the data set.
    this.tiered = store
      ? createCachedDataset(network, {
          ...common,
          store,
          fingerprint: source.fingerprint,
          // Writes wait while reads run; room for a whole epoch of them, so
          // the first epoch's samples are all on disk for the second.
          diskWriteQueue: { maxPending: DISK_WRITES_PENDING },
        })
      : undefined;
    this.cached = this.tiered ?? createCachedDataset(network, common);
    // random views after the cache: the cache keeps the decoded images, each epoch sees new views
    const augment = settings.augment === 'on' ? { augment: standardAugment() } : {};
    let loader: DataLoader<CsvImageSample>;
    if (shards) {
      const shardSizes = truncatedSizes(shards.shardSizes, this.length);
      loader = new DataLoader(this.cached, {
        batchSize: settings.batchSize,
        seed: LOADER_SEED,
        ...augment,
        // Shard-aware shuffle: a few shards at a time, so reads stay close together.
        sampler: (epoch, seed) => shardPlan({ shardSizes, seed, epoch }),
      });
    } else {
      loader = new DataLoader(this.cached, {
        batchSize: settings.batchSize,
        shuffle: true,
        seed: LOADER_SEED,
        ...augment,
      });
    }
    this.stepsPerEpoch = loader.length;
    const inner = toTfDataset(loader, {
      xs: { image: 'image', tabular: 'tabular' },
      ys: (b) => {
        const label = b.label as { data: ArrayLike<number>; shape: number[] };
        return tf.tensor2d(Float32Array.from(label.data), [label.shape[0] ?? 0, 1]);
      },
    });
    this.tfDataset = this.instrument(inner);
  }

  /** Build the pipeline for `settings`; its workers are started by the page's `host`. */
  static async create(
    source: PipelineSource,
    settings: Settings,
    host: WorkerHostClient,
  ): Promise<Pipeline> {
    const store = settings.strategy === 'both-disk' ? openDiskStore() : undefined;
    return new Pipeline(source, settings, store, host);
  }

  /** Count a load that reached the network (the CSV/image server or the shards). */
  private async count(load: CsvImageSample | Promise<CsvImageSample>): Promise<CsvImageSample> {
    try {
      const sample = await load;
      this.networkLoads++;
      return sample;
    } catch (err) {
      this.networkErrors++;
      throw err;
    }
  }

  /** Wraps the TF.js dataset to time each wait for a batch and count samples. */
  private instrument(inner: TfDataset<TfElement>): tf.data.Dataset<tf.TensorContainer> {
    const wrapped: TfDataset<TfElement> = {
      size: inner.size,
      iterator: async () => {
        const it = await inner.iterator();
        let first = true;
        return {
          next: async () => {
            const t0 = performance.now();
            const r = await it.next();
            const waited = performance.now() - t0;
            this.waitMs += waited;
            if (first) this.firstWaitMs = waited;
            first = false;
            if (!r.done) this.delivered += (r.value.ys as tf.Tensor).shape[0] ?? 0;
            return r;
          },
        };
      },
    };
    // fitDataset only uses `size` and `iterator()`.
    return wrapped as unknown as tf.data.Dataset<tf.TensorContainer>;
  }

  /** Where samples came from and what the caches hold. */
  stats(): PipelineStats {
    const engine = this.cached.getCacheStats();
    const tiers = this.tiered?.getCacheStats();
    const diskReads = tiers?.diskHits ?? 0;
    const diskMisses = tiers?.diskMisses ?? 0;
    const memoryTier = engine.capacity > 0;
    const reads = memoryTier ? engine.hits + engine.misses : 0;
    return {
      delivered: this.delivered,
      networkLoads: this.networkLoads,
      networkErrors: this.networkErrors,
      reads,
      memoryHits: memoryTier ? engine.hits : 0,
      diskReads,
      diskMisses,
      memoryHitRate: memoryTier ? engine.hitRate : 0,
      diskHitRate: diskReads + diskMisses > 0 ? diskReads / (diskReads + diskMisses) : 0,
      cacheSize: engine.size,
      cacheCapacity: engine.capacity,
      cacheBytes: engine.bytes,
      engine: tiers ?? engine,
      shards: this.shards?.stats(),
    };
  }

  /** What this data set holds on disk (two sources share one store), when the disk tier is on. */
  async diskUsage(): Promise<DiskUsage | undefined> {
    if (!this.store || !this.tiered) return undefined;
    // Keys are `<fingerprint>/<index>`: count this data set's, within the samples in use.
    const prefix = `${this.tiered.getCacheStats().disk.fingerprint}/`;
    const [keys, usage] = await Promise.all([this.store.keys(), this.store.usage()]);
    let entries = 0;
    for (const key of keys) {
      if (key.startsWith(prefix) && Number(key.slice(prefix.length)) < this.length) entries++;
    }
    // an OpfsStore's usage names its file backend (sync handles or async API); an IdbStore's has none
    const files = (usage as Partial<OpfsStoreUsage>).backend;
    const backend = files ? (`opfs-${files}` as const) : 'idb';
    return { entries, storeEntries: usage.entries, storeBytes: usage.bytes, backend };
  }

  /**
   * Wait for the queued disk writes (no-op without the disk tier). The tier
   * pauses writes while reads run, so without this the next epoch's reads can
   * overtake the last samples of this one and fetch them again.
   */
  async flushDisk(): Promise<void> {
    await this.tiered?.flush();
  }

  /** Stop workers and close the caches; pending disk writes are flushed first. */
  async close(): Promise<void> {
    await this.cached.close(); // finishes the queued disk writes; the store is ours
    await this.executor?.close?.();
    await this.store?.close?.();
  }
}

/** Empty the disk tier. */
export async function clearDisk(): Promise<void> {
  const store = openDiskStore();
  try {
    await store.clear();
  } finally {
    await store.close?.();
  }
}
