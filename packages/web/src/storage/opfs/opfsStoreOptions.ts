import {
  badRange,
  bool,
  nonEmptyString,
  nonNegativeFinite,
  nonNegativeMs,
  object,
  oneOfValues,
  positiveBytes,
  positiveMs,
  withDefault,
} from '@medfusion/core/internal';
import {
  checkEncryptionOptions,
  type EncryptionOptions,
  type EncryptionUsage,
} from '../encryption/encryptionOptions.js';
import {
  checkRetentionOptions,
  type RetentionOptions,
  type RetentionSettings,
} from '../retention/retentionOptions.js';
import type { EngineUsage } from './opfsEngineTypes.js';
import { OPFS_PROTOCOL_VERSION, type OpfsOpenArgs } from './opfsProtocol.js';

/** Options of {@link OpfsStore}. */
export interface OpfsStoreOptions extends EncryptionOptions, RetentionOptions {
  /**
   * OPFS directory holding the segments and index; `/` nests.
   * @example 'medfusion/chest-xray'
   */
  dir: string;
  /**
   * Byte budget of the segment files; over it whole segments are evicted, least
   * recently used first. The index adds a few dozen bytes per entry.
   * @default 1073741824 (1 GiB)
   */
  maxBytes?: number;
  /**
   * Target segment file size.
   * @default maxBytes / 8, clamped to [1 MiB, 64 MiB] (and to maxBytes)
   */
  segmentBytes?: number;
  /**
   * Ask the browser to keep this origin's storage under pressure
   * (`navigator.storage.persist()`); the answer is in {@link OpfsStore.persisted}.
   * @default false
   */
  persist?: boolean;
  /**
   * Run the store in its own dedicated worker with sync access handles
   * (fast). `false` keeps it on this thread with the async File System API.
   * @default true
   */
  worker?: boolean;
  /**
   * File API: `'auto'` uses sync access handles where offered (shared between
   * stores where the engine allows it, else exclusive, held only while the
   * store writes), `'exclusive'` takes the exclusive way where shared handles
   * exist too (what Firefox gets under `'auto'`), `'async'` forces the
   * createWritable/getFile fallback. Without working sync handles (WebKitGTK)
   * every choice is the async path; `usage().backend` says which runs.
   * @default 'auto'
   */
  backend?: 'auto' | 'async' | 'exclusive';
  /**
   * Pretend the origin's quota is this many bytes: writes taking the segments
   * beyond it fail with QuotaExceededError, and so does a flush on the flush
   * thread while the directory's files (any file in it) hold more; the next
   * {@link OpfsStore.flush} reports that one as StoreError `QUOTA_EXCEEDED`.
   * For testing the quota path.
   * @default undefined (the browser's own quota)
   */
  quotaBytes?: number;
  /**
   * How long a changed index may wait before it is snapshotted (records
   * written since are recovered from the segment tails anyway).
   * @default 1000
   */
  snapshotDelayMs?: number;
  /**
   * Group commit: the longest time written records wait for the flush that
   * makes them survive an OS crash or power loss. A put resolves once its
   * bytes are written to the segment file, where a reload, a crashed tab or
   * another store already finds them; the flush follows within this delay,
   * once for every batch written meanwhile ({@link OpfsStore.flush} forces
   * it). `0` flushes each batch before its puts resolve. The writer lock is
   * held until that flush, so another store's writes wait at most this long.
   * @default 100
   */
  flushDelayMs?: number;
  /**
   * Seal values with xxHash64 compiled to WebAssembly (hash-wasm), faster
   * than the JavaScript xxHash32 on large values (150 KB: 22 against 31 µs in
   * the OPFS worker), where the page allows WebAssembly; elsewhere, or with `false`
   * (a page that should not compile WebAssembly), values are sealed with
   * xxHash32. Entries keep the checksum they were written with: a store that
   * cannot compute xxHash64 reads such an entry as a miss (dropped, counted in
   * `corruptDropped`), never unchecked. See `usage().checksumAlgorithm`.
   * @default true
   */
  webAssembly?: boolean;
  /**
   * Longest wait for one call to the store's worker; past it the call
   * rejects with StoreError `STORE_TIMEOUT` (nothing waits forever). A `get`
   * queued on the page behind the two read batches in flight is sent when one
   * of them settles, and is bounded from then on.
   * @default 30000
   */
  callTimeoutMs?: number;
}

/** Usage of an {@link OpfsStore}: entries, bytes, and what the disk holds. */
export interface OpfsStoreUsage extends EngineUsage, EncryptionUsage {
  /** Records deleted because they were older than `maxAge` (on open and by the periodic sweep). */
  expired: number;
  /**
   * Answer of `navigator.storage.persist()` when `persist: true` was asked; absent while the
   * browser has not answered (a permission prompt still open, Firefox).
   */
  persisted?: boolean;
}

const MiB = 2 ** 20;

/**
 * Check the options of {@link OpfsStore} and fill in the defaults: the
 * arguments the host opens the store with, and the per-call timeout. Throws
 * TypeError / RangeError on a bad option, in the order the store always
 * checked them. Internal.
 */
export function checkOpfsStoreOptions(options: OpfsStoreOptions): {
  args: OpfsOpenArgs;
  callTimeoutMs: number;
  retention: RetentionSettings;
} {
  object('options', options, 'an object with a dir');
  if (nonEmptyString('dir', options.dir).replace(/\//g, '') === '')
    throw badRange('dir', 'a directory name', options.dir);
  const maxBytes = withDefault('maxBytes', options.maxBytes, 2 ** 30, positiveBytes);
  const segmentBytes = withDefault(
    'segmentBytes',
    options.segmentBytes,
    Math.min(maxBytes, Math.max(MiB, Math.min(64 * MiB, Math.floor(maxBytes / 8)))),
    positiveBytes,
  );
  withDefault('quotaBytes', options.quotaBytes, undefined, positiveBytes);
  const snapshotDelayMs = withDefault(
    'snapshotDelayMs',
    options.snapshotDelayMs,
    1000,
    nonNegativeMs,
  );
  const flushDelayMs = withDefault('flushDelayMs', options.flushDelayMs, 100, nonNegativeFinite);
  const backend = withDefault('backend', options.backend, 'auto', (name, v) =>
    oneOfValues(name, v, ['auto', 'async', 'exclusive'] as const),
  );
  const webAssembly = withDefault('webAssembly', options.webAssembly, true, bool);
  withDefault('worker', options.worker, true, bool);
  withDefault('persist', options.persist, false, bool);
  const encryption = checkEncryptionOptions(options);
  const retention = checkRetentionOptions(options);
  const args: OpfsOpenArgs = {
    protocol: OPFS_PROTOCOL_VERSION,
    dir: options.dir,
    webAssembly,
    maxBytes,
    segmentBytes,
    snapshotDelayMs,
    flushDelayMs,
    backend,
    ...(options.quotaBytes === undefined ? {} : { quotaBytes: options.quotaBytes }),
    ...(encryption === undefined ? {} : { encryption }),
  };
  const callTimeoutMs = withDefault('callTimeoutMs', options.callTimeoutMs, 30_000, positiveMs);
  return { args, callTimeoutMs, retention };
}
