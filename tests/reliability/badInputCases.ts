// The bad-input table of @medfusion/core: each row calls a real public API with
// one bad value and names the error it must raise and the text its message must
// contain (the option and the bad value). docs/reliability.md shows the same
// table; bad-input.test.ts checks both.
import {
  CachedDataset,
  createCachedDataset,
  createCollate,
  DataLoader,
  decodeSample,
  encodeSample,
  fromArray,
  fromLoader,
  LRUCache,
  MemoryStore,
  PersistentTierDataset,
  PrefetchDataset,
  Quarantine,
  retry,
} from '@medfusion/core';

/** One row of the table. */
export interface BadInputCase {
  /** What is called, e.g. `new DataLoader(ds, { batchSize: 0 })`. */
  call: string;
  /** The kind of input, e.g. 'option', 'index', 'key', 'sample type', 'shape'. */
  kind: string;
  /** Error name expected (TypeError, RangeError or a MedFusionError subclass). */
  error: string;
  /** Code expected on MedFusionErrors. */
  code?: string;
  /** Text the message must contain: the option/index name and the bad value. */
  mentions: string[];
  /** Performs the call (may throw or reject). */
  run: () => unknown;
}

const ds = fromArray([{ image: new Uint8Array(4), label: 1 }]);
const ten = fromLoader(10, (i) => ({ image: new Uint8Array(4).fill(i), label: i }));
const bytes = new Uint8Array([1, 2, 3]);

export const coreCases: BadInputCase[] = [
  {
    call: 'new DataLoader(ds, { batchSize: 0 })',
    kind: 'option',
    error: 'RangeError',
    mentions: ['batchSize', '0'],
    run: () => new DataLoader(ds, { batchSize: 0 }),
  },
  {
    call: "new DataLoader(ds, { batchSize: '8' })",
    kind: 'option',
    error: 'TypeError',
    mentions: ['batchSize', '"8"'],
    run: () => new DataLoader(ds, { batchSize: '8' as never }),
  },
  {
    call: 'new DataLoader(ds, { seed: -1 })',
    kind: 'option',
    error: 'RangeError',
    mentions: ['seed', '-1'],
    run: () => new DataLoader(ds, { seed: -1 }),
  },
  {
    call: "new DataLoader(ds, { shuffle: 'yes' })",
    kind: 'option',
    error: 'TypeError',
    mentions: ['shuffle', '"yes"'],
    run: () => new DataLoader(ds, { shuffle: 'yes' as never }),
  },
  {
    call: "new DataLoader(ds, { onError: 'ignore' })",
    kind: 'option',
    error: 'RangeError',
    mentions: ['onError', '"ignore"'],
    run: () => new DataLoader(ds, { onError: 'ignore' as never }),
  },
  {
    call: 'new DataLoader(ds, { onError: { retry: { retries: -1 } } })',
    kind: 'option',
    error: 'RangeError',
    mentions: ['onError.retry.retries', '-1'],
    run: () => new DataLoader(ds, { onError: { retry: { retries: -1 } } }),
  },
  {
    call: 'new DataLoader(ds, { onError: { retry: { baseDelayMs: -5 } } })',
    kind: 'option',
    error: 'RangeError',
    mentions: ['onError.retry.baseDelayMs', '-5'],
    run: () => new DataLoader(ds, { onError: { retry: { baseDelayMs: -5 } } }),
  },
  {
    call: 'new DataLoader(ds, { onError: { retry: 3 } })',
    kind: 'option',
    error: 'TypeError',
    mentions: ['onError.retry', '3'],
    run: () => new DataLoader(ds, { onError: { retry: 3 as never } }),
  },
  {
    call: "new DataLoader(ds, { onError: { retry: {}, afterRetries: 'fail' } })",
    kind: 'option',
    error: 'RangeError',
    mentions: ['onError.afterRetries', '"fail"'],
    run: () => new DataLoader(ds, { onError: { retry: {}, afterRetries: 'fail' as never } }),
  },
  {
    call: "new DataLoader(ds, { onSampleError: 'log' })",
    kind: 'option',
    error: 'TypeError',
    mentions: ['onSampleError', '"log"'],
    run: () => new DataLoader(ds, { onSampleError: 'log' as never }),
  },
  {
    call: 'new DataLoader(ds, { quarantine: [1, 2] })',
    kind: 'option',
    error: 'TypeError',
    mentions: ['quarantine', '[object Array]'],
    run: () => new DataLoader(ds, { quarantine: [1, 2] as never }),
  },
  {
    call: 'new DataLoader(ds, { resumeFrom: { seed: 0, epoch: 0, cursor: 99 } })',
    kind: 'option',
    error: 'RangeError',
    mentions: ['resumeFrom.cursor', '99'],
    run: () => new DataLoader(ds, { resumeFrom: { seed: 0, epoch: 0, cursor: 99 } }),
  },
  {
    call: 'new DataLoader(null)',
    kind: 'dataset',
    error: 'TypeError',
    mentions: ['dataset', 'null'],
    run: () => new DataLoader(null as never),
  },
  {
    call: "createCachedDataset(ds, { cacheType: 'mmap' })",
    kind: 'option',
    error: 'RangeError',
    mentions: ['cacheType', '"mmap"'],
    run: () => createCachedDataset(ds, { cacheType: 'mmap' as never }),
  },
  {
    call: 'createCachedDataset(ds, { cacheSize: -1 })',
    kind: 'option',
    error: 'RangeError',
    mentions: ['cacheSize', '-1'],
    run: () => createCachedDataset(ds, { cacheSize: -1 }),
  },
  {
    call: 'createCachedDataset(ds, { prefetchSize: 1.5 })',
    kind: 'option',
    error: 'RangeError',
    mentions: ['prefetchSize', '1.5'],
    run: () => createCachedDataset(ds, { prefetchSize: 1.5 }),
  },
  {
    call: 'createCachedDataset(ds, { numWorkers: 0 })',
    kind: 'option',
    error: 'RangeError',
    mentions: ['numWorkers', '0'],
    run: () => createCachedDataset(ds, { numWorkers: 0 }),
  },
  {
    call: 'createCachedDataset(ds, { maxBytes: NaN })',
    kind: 'option',
    error: 'RangeError',
    mentions: ['maxBytes', 'NaN'],
    run: () => createCachedDataset(ds, { maxBytes: Number.NaN }),
  },
  {
    call: "createCachedDataset(ds, { evictionPolicy: 'fifo' })",
    kind: 'option',
    error: 'RangeError',
    mentions: ['evictionPolicy', '"fifo"'],
    run: () => createCachedDataset(ds, { evictionPolicy: 'fifo' as never }),
  },
  {
    call: 'createCachedDataset(ds, { loadTimeoutMs: 0 })',
    kind: 'option',
    error: 'RangeError',
    mentions: ['loadTimeoutMs', '0'],
    run: () => createCachedDataset(ds, { loadTimeoutMs: 0 }),
  },
  {
    call: "createCachedDataset(ds, { cacheDir: 'cache' }) in core",
    kind: 'option',
    error: 'MedFusionError',
    code: 'NO_STORE',
    mentions: ['cacheDir', '"cache"'],
    run: () => createCachedDataset(ds, { cacheDir: 'cache' } as never),
  },
  {
    call: "new CachedDataset(ds, { cacheSize: 'big' })",
    kind: 'option',
    error: 'TypeError',
    mentions: ['cacheSize', '"big"'],
    run: () => new CachedDataset(ds, { cacheSize: 'big' as never }),
  },
  {
    call: 'new PrefetchDataset(ds, { prefetchSize: -2 })',
    kind: 'option',
    error: 'RangeError',
    mentions: ['prefetchSize', '-2'],
    run: () => new PrefetchDataset(ds, { prefetchSize: -2 }),
  },
  {
    call: 'new LRUCache({ capacity: -1 })',
    kind: 'option',
    error: 'RangeError',
    mentions: ['capacity', '-1'],
    run: () => new LRUCache({ capacity: -1 }),
  },
  {
    call: 'createCachedDataset(ten).get(-1)',
    kind: 'index',
    error: 'RangeError',
    mentions: ['index', '-1'],
    run: () => createCachedDataset(ten).get(-1),
  },
  {
    call: 'createCachedDataset(ten).get(10)',
    kind: 'index',
    error: 'RangeError',
    mentions: ['index', '10', '[0, 10)'],
    run: () => createCachedDataset(ten).get(10),
  },
  {
    call: 'createCachedDataset(ten).get(2.5)',
    kind: 'index',
    error: 'RangeError',
    mentions: ['index', '2.5'],
    run: () => createCachedDataset(ten).get(2.5),
  },
  {
    call: "fromLoader(10, f).get('3')",
    kind: 'index',
    error: 'RangeError',
    mentions: ['index', '"3"'],
    run: () => ten.get('3' as never),
  },
  {
    call: 'fromArray(null)',
    kind: 'dataset',
    error: 'TypeError',
    mentions: ['items', 'null'],
    run: () => fromArray(null as never),
  },
  {
    call: 'fromLoader(-1, f)',
    kind: 'option',
    error: 'RangeError',
    mentions: ['length', '-1'],
    run: () => fromLoader(-1, () => 0),
  },
  {
    call: "fromLoader(10, 'load')",
    kind: 'option',
    error: 'TypeError',
    mentions: ['loader', '"load"'],
    run: () => fromLoader(10, 'load' as never),
  },
  {
    call: "new MemoryStore().put('', bytes)",
    kind: 'key',
    error: 'RangeError',
    mentions: ['key', '""'],
    run: () => new MemoryStore().put('', bytes),
  },
  {
    call: 'new MemoryStore().get(42)',
    kind: 'key',
    error: 'TypeError',
    mentions: ['key', '42'],
    run: () => new MemoryStore().get(42 as never),
  },
  {
    call: "new MemoryStore().put('k', [1, 2, 3])",
    kind: 'sample type',
    error: 'TypeError',
    mentions: ['value', 'Uint8Array', '[object Array]'],
    run: () => new MemoryStore().put('k', [1, 2, 3] as never),
  },
  {
    call: 'new MemoryStore({ maxBytes: -1 })',
    kind: 'option',
    error: 'RangeError',
    mentions: ['maxBytes', '-1'],
    run: () => new MemoryStore({ maxBytes: -1 }),
  },
  {
    call: "new Quarantine({ key: '' })",
    kind: 'key',
    error: 'RangeError',
    mentions: ['key', '""'],
    run: () => new Quarantine({ key: '' }),
  },
  {
    call: 'new Quarantine().add(-3)',
    kind: 'index',
    error: 'RangeError',
    mentions: ['index', '-3'],
    run: () => new Quarantine().add(-3),
  },
  {
    call: "new PersistentTierDataset(ds, { store: new MemoryStore(), fingerprint: '' })",
    kind: 'key',
    error: 'RangeError',
    mentions: ['fingerprint', '""'],
    run: () => new PersistentTierDataset(ds, { store: new MemoryStore(), fingerprint: '' }),
  },
  {
    call: "new PersistentTierDataset(ds, { store: 'opfs' })",
    kind: 'option',
    error: 'TypeError',
    mentions: ['store', '"opfs"'],
    run: () => new PersistentTierDataset(ds, { store: 'opfs' as never }),
  },
  {
    call: 'collate([{ image: 4×u8 }, { image: 5×u8 }]) (samples 7, 9)',
    kind: 'shape',
    error: 'CollateError',
    mentions: ['Sample 9', 'image'],
    run: () =>
      createCollate()([{ image: new Uint8Array(4) }, { image: new Uint8Array(5) }] as never, {
        indices: [7, 9],
      }),
  },
  {
    call: "collate([{ image: u8, label: 1 }, { image: u8, label: 'cat' }]) (samples 3, 4)",
    kind: 'sample type',
    error: 'CollateError',
    mentions: ['Sample 4', 'label'],
    run: () =>
      createCollate()(
        [
          { image: new Uint8Array(2), label: 1 },
          { image: new Uint8Array(2), label: 'cat' },
        ] as never,
        { indices: [3, 4] },
      ),
  },
  {
    call: 'encodeSample({ f: () => 1 })',
    kind: 'sample type',
    error: 'TypeError',
    mentions: ['sample.f', 'function'],
    run: () => encodeSample({ f: () => 1 } as never),
  },
  {
    call: 'decodeSample(new Uint8Array([1, 2, 3]))',
    kind: 'sample type',
    error: 'SampleCodecError',
    code: 'BAD_SAMPLE_BYTES',
    mentions: ['sample bytes'],
    run: () => decodeSample(new Uint8Array([1, 2, 3])),
  },
  {
    call: 'retry(f, { retries: -1 })',
    kind: 'option',
    error: 'RangeError',
    mentions: ['retries', '-1'],
    run: () => retry(async () => 1, { retries: -1 }),
  },
];
