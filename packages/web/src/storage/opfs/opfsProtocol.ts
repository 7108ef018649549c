/**
 * Every message between the OPFS store's threads, in one place: the page ↔
 * OPFS worker RPC (carried by comlink), the streamed reads on their own
 * MessagePort, and the OPFS worker ↔ flush thread jobs. Each streamed message
 * carries {@link OPFS_PROTOCOL_VERSION}; every error crosses as core's one
 * serialized shape (`serializeError` / `deserializeError`), so it arrives as
 * its own class (a QuotaExceededError stays one, `isQuotaError` sees it).
 * Not exported from the package: all ends ship together. Internal.
 */

import type { SerializedError } from '@medfusion/core/internal';
import type { EncryptionSettings, EncryptionUsage } from '../encryption/encryptionOptions.js';
import type { EngineUsage } from './opfsEngineTypes.js';

/**
 * Bumped whenever a message below changes shape; a message of another version is refused.
 * 2: `OpfsOpenArgs.encryption` (a worker of version 1 would write plaintext),
 * `minTime` on reads, `purge`.
 */
export const OPFS_PROTOCOL_VERSION = 2;

/** What the host's `usage` answers: the engine's figures and the encryption counters. */
export type OpfsHostUsage = EngineUsage &
  EncryptionUsage & {
    /** Records deleted because they were older than `maxAge`. */
    expired: number;
  };

/** What every host method answers: its value, or the error (core's one serializer). */
export type OpfsReply<T> = { ok: true; value: T } | { ok: false; error: SerializedError };

/** What OpfsStore sends to open the engine. */
export interface OpfsOpenArgs {
  /** The page's {@link OPFS_PROTOCOL_VERSION}: a worker of another version refuses to open. */
  protocol: typeof OPFS_PROTOCOL_VERSION;
  dir: string;
  maxBytes: number;
  segmentBytes: number;
  quotaBytes?: number;
  snapshotDelayMs: number;
  flushDelayMs: number;
  backend: 'auto' | 'sync' | 'async' | 'exclusive';
  /** Seal values with xxHash64 in WebAssembly where this thread may compile it. */
  webAssembly: boolean;
  /**
   * Whether the page checks xxHash64 values itself (it loaded the WebAssembly);
   * when not, the host checks them before they are sent.
   */
  pageChecksXxh64?: boolean;
  /**
   * Encryption at rest: the app's key(s) (CryptoKeys are structured-cloneable,
   * so they travel to the worker, which seals and opens every value).
   */
  encryption?: EncryptionSettings;
}

/** What a write answers: one error (or null) per record, and the batch buffer to reuse. */
export interface OpfsWriteResult {
  errors: (SerializedError | null)[];
  buffer: ArrayBuffer;
}

/**
 * The OPFS store's RPC surface, served by `OpfsHost` in the OPFS worker
 * (through comlink) or on the calling thread. No method rejects: failures
 * come back as `{ ok: false, error }`.
 */
export interface OpfsHostApi {
  /**
   * Open the engine; with `aliveLock`, hold that Web Lock for the worker's
   * life; with `reads`, serve {@link OpfsReadRequest}s sent on that port,
   * answering each value as soon as it is read ({@link OpfsReadReply}).
   */
  open(
    args: OpfsOpenArgs,
    aliveLock: string | null,
    reads: MessagePort | null,
  ): Promise<OpfsReply<'sync' | 'async'>>;
  /**
   * Read a batch; the buffers of the values move to the caller. Records
   * written before `minTime` (seconds since the epoch; 0: none) are misses.
   */
  getMany(keys: string[], minTime: number): Promise<OpfsReply<(Uint8Array | undefined)[]>>;
  /**
   * Delete for real the records of keys starting with `prefix` (when not
   * null) and those written before `minTime` (seconds; 0: none): the
   * segments holding them are removed. Answers how many live entries went.
   */
  purge(minTime: number, prefix: string | null): Promise<OpfsReply<number>>;
  has(key: string): Promise<OpfsReply<boolean>>;
  delete(key: string): Promise<OpfsReply<boolean>>;
  /**
   * Write a batch packed by packRecords (its buffer moves here, no copy);
   * `keys` names its records in order. Answers one error (or null) per
   * record, and the batch's buffer, moved back for the next batch.
   */
  write(batch: Uint8Array, keys: string[]): Promise<OpfsReply<OpfsWriteResult>>;
  /** Flush everything written so far (the group commit, now). */
  flush(): Promise<OpfsReply<void>>;
  keys(): Promise<OpfsReply<string[]>>;
  clear(): Promise<OpfsReply<void>>;
  usage(): Promise<OpfsReply<OpfsHostUsage>>;
  persistIndex(): Promise<OpfsReply<void>>;
  close(): Promise<OpfsReply<void>>;
}

/** Page → OPFS worker, on the read port: read batch `id`. */
export interface OpfsReadRequest {
  v: typeof OPFS_PROTOCOL_VERSION;
  type: 'read';
  id: number;
  keys: string[];
  /** Records written before this (seconds since the epoch; 0: none) are misses (`maxAge`). */
  minTime: number;
}

/**
 * OPFS worker → page, on the read port: values of batch `id` (`values[n]` is
 * that of `keys[i[n]]`, its buffer moved), each with the checksum the page
 * must find in it before trusting it (`sums[n]`, or -1 when the host verified
 * it); or the batch's error.
 */
export type OpfsReadReply =
  | {
      v: typeof OPFS_PROTOCOL_VERSION;
      type: 'values';
      id: number;
      i: number[];
      values: (Uint8Array | undefined)[];
      sums: number[];
    }
  | { v: typeof OPFS_PROTOCOL_VERSION; type: 'error'; id: number; error: SerializedError };

/** OPFS worker → flush thread: fsync `file` (by its handle), job `id`. */
export interface FlushJob {
  v: typeof OPFS_PROTOCOL_VERSION;
  type: 'flush';
  id: number;
  file: FileSystemFileHandle;
  /**
   * The store's simulated quota (`quotaBytes`, tests), with the directory it
   * charges: the flush fails with QuotaExceededError when the directory's
   * files hold more, as a browser's flush may when the origin is full.
   */
  quota?: { bytes: number; dir: FileSystemDirectoryHandle };
}

/** Flush thread → OPFS worker: job `id` is durable, or failed with `error`. */
export type FlushReply =
  | { v: typeof OPFS_PROTOCOL_VERSION; type: 'flushed'; id: number }
  | { v: typeof OPFS_PROTOCOL_VERSION; type: 'error'; id: number; error: SerializedError };

/** The messages that travel as plain `postMessage` data (not through comlink). */
export type OpfsMessage = OpfsReadRequest | OpfsReadReply | FlushJob | FlushReply;

/**
 * `data` as a message of this protocol version, or undefined for anything
 * else (a message of another version, or not ours), which the receiver drops
 * or fails on.
 */
export function opfsMessage<M extends OpfsMessage>(data: unknown): M | undefined {
  const m = data as { v?: unknown; type?: unknown } | null;
  if (m === null || typeof m !== 'object' || m.v !== OPFS_PROTOCOL_VERSION) return undefined;
  return typeof m.type === 'string' ? (data as M) : undefined;
}
