// The public calls of @medfusion/web that need a browser for a valid run (storage, workers,
// packing, WebGPU), as tests/core/options-refusal.ts tries them: their bad options are refused
// in Node too (tests/core/options-null-refused.test.ts), and tests/web/options-null-refused.test.ts
// makes the valid runs in Chromium.
import {
  connectWorkerHost,
  createAugmentWorkerPool,
  createCachedDataset,
  createWorkerExecutor,
  createWorkerHost,
  fromArray,
  IdbStore,
  MemoryMappedCache,
  OpfsStore,
  packFiles,
  storeForCacheDir,
} from '@medfusion/web';
import { UploadRing, uploadBatch } from '@medfusion/web/webgpu';
import { toFloat32 } from './options-cases-core.js';
import type { OptionSpec, OptionsCase } from './options-refusal.js';

export const ENCRYPTION = {
  encryptionKey: 'object',
  previousEncryptionKeys: ['objects', [{}]],
  rotation: 'enum',
  maxAge: 'number',
  clock: 'object',
} as const satisfies Record<string, OptionSpec>;
const WORKERS = {
  worker: 'fn',
  poolSize: 'number|string',
  callTimeoutMs: 'number',
  startTimeoutMs: 'number',
  concurrency: 'number',
  speculativeWorkers: 'number',
  liveness: 'enum',
  heartbeatMs: 'number',
  maxStartFailures: 'number',
  onCrash: 'fn',
  clock: 'object',
} as const satisfies Record<string, OptionSpec>;
const close = (r: unknown) => (r as { close?: () => unknown }).close?.();
/** A stand-in for a Worker factory, never called by a refused call. */
const worker = () => {
  throw new Error('no Worker in this test');
};
/** A stand-in for a GPUDevice (a real one in the browser test). */
let device = { createBuffer: () => ({}), queue: {} } as unknown as GPUDevice;
/** Run the WebGPU calls on `gpu` (the browser test's real device) instead of the stand-in. */
export function useDevice(gpu: GPUDevice): void {
  device = gpu;
}

/** Calls that need a browser for a valid run; their bad options are refused in Node too. */
export const BROWSER: OptionsCase[] = [
  {
    call: 'createWorkerHost(options)',
    types: ['WorkerHostOptions'],
    run: (o) => createWorkerHost(o as never),
    cleanup: close,
    base: { workers: { loader: worker } },
    required: ['workers'],
    options: { workers: 'object', maxWorkers: 'number', signal: 'object' },
  },
  {
    call: 'connectWorkerHost(port, options)',
    types: ['ConnectWorkerHostOptions'],
    run: (o) => connectWorkerHost(new MessageChannel().port1, o as never),
    cleanup: close,
    options: { signal: 'object' },
  },
  {
    call: 'createCachedDataset(dataset, options) (web, cacheDir)',
    types: ['CreateCachedDatasetOptions', 'EncryptionOptions', 'RetentionOptions'],
    run: (o) => createCachedDataset(fromArray([1, 2]), o as never),
    cleanup: close,
    base: { cacheDir: 'options-null-refused-factory' },
    required: ['cacheDir'],
    options: { cacheDir: 'string', cacheMaxBytes: 'number', persist: 'bool', ...ENCRYPTION },
  },
  {
    call: 'storeForCacheDir(cacheDir, options)',
    types: ['CacheDirStoreOptions'],
    run: (o) => storeForCacheDir('options-null-refused-dir', o as never),
    cleanup: close,
    options: {
      maxBytes: 'number',
      persist: 'bool',
      backend: 'enum',
      webAssembly: 'bool',
      ...ENCRYPTION,
    },
  },
  {
    call: 'new OpfsStore(options)',
    types: ['OpfsStoreOptions'],
    run: (o) => new OpfsStore(o as never),
    cleanup: close,
    base: { dir: 'options-null-refused-opfs' },
    required: ['dir'],
    options: {
      dir: 'string',
      maxBytes: 'number',
      segmentBytes: 'number',
      persist: 'bool',
      worker: 'bool',
      backend: 'enum',
      quotaBytes: 'number',
      snapshotDelayMs: 'number',
      flushDelayMs: 'number',
      webAssembly: 'bool',
      callTimeoutMs: 'number',
      ...ENCRYPTION,
    },
  },
  {
    call: 'new IdbStore(options)',
    types: ['IdbStoreOptions'],
    run: (o) => new IdbStore(o as never),
    cleanup: close,
    base: { name: 'options-null-refused-idb' },
    required: ['name'],
    options: {
      name: 'string',
      maxBytes: 'number',
      chunkBytes: 'number',
      quotaBytes: 'number',
      webAssembly: 'bool',
      ...ENCRYPTION,
    },
  },
  {
    call: 'new MemoryMappedCache(options)',
    types: ['MemoryMappedCacheOptions'],
    run: (o) => new MemoryMappedCache(o as never),
    cleanup: close,
    base: { cacheDir: 'options-null-refused-mmc' },
    options: { cacheDir: 'string', maxSizeGB: 'number', backend: 'enum' },
  },
  {
    call: 'packFiles(options)',
    types: ['PackFilesOptions'],
    run: (o) => packFiles(o as never),
    base: { files: [new Blob([new Uint8Array(8)])], dir: 'options-null-refused-pack' },
    required: ['dir'],
    options: {
      files: ['objects', [new Blob([])]],
      directory: 'object',
      labels: 'string|object',
      imageColumn: 'string',
      labelColumn: 'string',
      folderLabels: 'bool',
      dir: 'string',
      replace: 'bool',
      targetShardBytes: 'number',
      onProgress: 'fn',
      signal: 'object',
    },
  },
  {
    call: 'createWorkerExecutor(options)',
    types: ['WorkerExecutorOptions'],
    run: (o) => createWorkerExecutor(o as never),
    cleanup: close,
    base: { worker },
    required: ['worker'],
    options: WORKERS,
  },
  {
    call: 'createAugmentWorkerPool(options)',
    types: ['AugmentWorkerPoolOptions'],
    run: (o) => createAugmentWorkerPool(o as never),
    cleanup: close,
    base: { worker },
    required: ['worker'],
    options: { ...WORKERS, poolSize: 'number' },
  },
  {
    call: 'new UploadRing(device, options)',
    types: ['UploadRingOptions'],
    run: (o) => new UploadRing(device, o as never),
    options: { slots: 'number', label: 'string', ...toFloat32, maxBatchSize: 'number' },
  },
  {
    call: 'uploadBatch(device, batch, options)',
    types: ['UploadBatchOptions'],
    run: (o) => uploadBatch(device, {}, o as never),
    options: { ring: 'object', slots: 'number', fields: ['strings', ['x']] },
  },
];
