// Every public call of @medfusion/node that takes an options object (its own: the LMDB disk
// tier, the worker-thread pool and createCachedDataset's cacheDir options; core's calls it
// re-exports are in options-cases-core.ts), with what each option takes.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fromArray } from '@medfusion/core';
import { createCachedDataset, createThreadExecutor, LmdbStore } from '@medfusion/node';
import { ENCRYPTION } from './options-cases-browser.js';
import type { OptionsCase } from './options-refusal.js';

/** The folder of the stores valid runs open (see {@link removeCaseDirs}). */
let root: string | undefined;
/** A fresh directory for a store a valid run opens. */
function dir(): string {
  root ??= mkdtempSync(join(tmpdir(), 'medfusion-options-node-'));
  return mkdtempSync(join(root, 'store-'));
}

/** Remove the stores' folders the cases made (the test file's afterAll). */
export function removeCaseDirs(): void {
  if (root !== undefined) rmSync(root, { recursive: true, force: true });
  root = undefined;
}
const close = (x: unknown) => (x as { close(): Promise<void> }).close();
const LOADER = new URL('../node/fixtures/loader.worker.mjs', import.meta.url);

export const NODE_PACKAGE_CASES: OptionsCase[] = [
  {
    call: 'new LmdbStore(options)',
    types: ['LmdbStoreOptions'],
    run: (o) => new LmdbStore(o === undefined || o === null ? (o as never) : { dir: dir(), ...o }),
    cleanup: close,
    required: ['dir'],
    options: { dir: 'string', maxBytes: 'number', quotaBytes: 'number', ...ENCRYPTION },
  },
  {
    call: 'createThreadExecutor(options)',
    types: ['ThreadExecutorOptions'],
    run: (o) => createThreadExecutor(o as never),
    cleanup: close,
    base: { worker: LOADER },
    required: ['worker'],
    options: {
      worker: 'string|object',
      poolSize: 'number',
      callTimeoutMs: 'number',
      execArgv: ['strings', ['--no-warnings']],
    },
  },
  {
    call: 'createCachedDataset(dataset, options) (node, cacheDir)',
    types: ['CreateCachedDatasetOptions'],
    run: (o) =>
      createCachedDataset(
        fromArray([1, 2]),
        o === undefined || o === null ? (o as never) : { cacheDir: dir(), ...o },
      ),
    cleanup: close,
    base: { fingerprint: { name: 'options' } },
    required: ['cacheDir'],
    options: {
      cacheDir: 'string',
      maxSizeGB: 'number',
      encryptionKey: 'object',
      previousEncryptionKeys: ENCRYPTION.previousEncryptionKeys,
      rotation: 'enum',
      maxAge: 'number',
    },
  },
];
