import { ClosedError } from '@medfusion/core';
import { type SerializedError, serializeError } from '@medfusion/core/internal';
import * as Comlink from 'comlink';
import { holdLockForever } from '../../workers/workerLiveness.js';
import { StoreError } from '../storeErrors.js';
import { ValueChecksum } from '../ValueChecksum.js';
import { asyncBackend } from './opfsAsyncFallback.js';
import type { EngineUsage } from './opfsEngineTypes.js';
import { type FileBackend, openDirectory } from './opfsFiles.js';
import { OpfsSegmentEngine, type ReadCheck } from './opfsSegmentEngine.js';
import { WriterLease } from './opfsWriterLease.js';

/** What OpfsStore sends to open the engine. Internal. */
export interface OpfsOpenArgs {
  dir: string;
  maxBytes: number;
  segmentBytes: number;
  quotaBytes?: number;
  snapshotDelayMs: number;
  flushDelayMs: number;
  backend: 'auto' | 'sync' | 'async';
  /** Seal values with xxHash64 in WebAssembly where this thread may compile it. */
  webAssembly: boolean;
  /**
   * Whether the page checks xxHash64 values itself (it loaded the WebAssembly);
   * when not, the host checks them before they are sent.
   */
  pageChecksXxh64?: boolean;
}

/** What a write answers: one error (or null) per record, and the batch buffer to reuse. Internal. */
export interface OpfsWriteResult {
  errors: (SerializedError | null)[];
  buffer: ArrayBuffer;
}

/** A batch of reads sent on the read port. Internal. */
export interface OpfsReadRequest {
  id: number;
  keys: string[];
}

/**
 * One answer on the read port: values of batch `id` (`values[n]` is that of
 * `keys[i[n]]`, its buffer moved), each with the checksum the page must find
 * in it before trusting it (`sums[n]`, or -1 when the host verified it), or
 * the batch's error. Internal.
 */
export type OpfsReadReply =
  | { id: number; i: number[]; values: (Uint8Array | undefined)[]; sums: number[] }
  | { id: number; error: SerializedError };

/**
 * Bytes of values one streamed read answer gathers before it goes: a large
 * value goes alone, as soon as it is read; small ones share a message.
 */
const READ_ANSWER_BYTES = 64 * 1024;

/** What every host method answers: its value, or the error (core's one serializer). Internal. */
export type OpfsReply<T> = { ok: true; value: T } | { ok: false; error: SerializedError };

/**
 * The OPFS store's RPC surface, served by {@link OpfsHost} in the OPFS worker
 * (through comlink) or on the calling thread. No method rejects: failures
 * come back as `{ ok: false, error }`. Internal.
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
  /** Read a batch; the buffers of the values move to the caller. */
  getMany(keys: string[]): Promise<OpfsReply<(Uint8Array | undefined)[]>>;
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
  usage(): Promise<OpfsReply<EngineUsage>>;
  persistIndex(): Promise<OpfsReply<void>>;
  close(): Promise<OpfsReply<void>>;
}

/** Builds a file backend for a directory; `kind` chooses sync handles when offered. */
export type BackendFactory = (
  dir: FileSystemDirectoryHandle,
  kind: 'auto' | 'sync' | 'async',
) => FileBackend;

/**
 * Serves {@link OpfsHostApi} with one segment engine, in the OPFS worker or,
 * where workers are missing, on the calling thread. Reads run at once
 * (checksums guard them); opens, writes, clears and closes keep their order.
 * Internal.
 */
export class OpfsHost implements OpfsHostApi {
  private engine: OpfsSegmentEngine | undefined;
  private channel: BroadcastChannel | undefined;
  private readPort: MessagePort | undefined;
  private chain: Promise<unknown> = Promise.resolve();
  private closed = false;
  /** Which values of a streamed read the page checks (see OpfsOpenArgs.pageChecksXxh64). */
  private pageCheck: ReadCheck = 'caller';
  private readonly self = `${Date.now().toString(36)}-${Math.random().toString(36).slice(2)}`;

  constructor(private readonly makeBackend: BackendFactory = (d) => asyncBackend(d)) {}

  open(
    args: OpfsOpenArgs,
    aliveLock: string | null,
    reads: MessagePort | null,
  ): Promise<OpfsReply<'sync' | 'async'>> {
    return this.inOrder(async () => {
      if (aliveLock !== null) await holdLockForever(aliveLock);
      const kind = await this.openEngine(args);
      this.pageCheck = args.pageChecksXxh64 === false ? 'caller-xxh32' : 'caller';
      if (reads) {
        this.readPort?.close();
        this.readPort = reads;
        reads.onmessage = (ev: MessageEvent<OpfsReadRequest>) => {
          void this.serveReads(reads, ev.data);
        };
      }
      return kind;
    });
  }

  /**
   * Read a batch, posting values as soon as they add up to
   * READ_ANSWER_BYTES (their buffers move): the page checks a value's
   * checksum and goes on with it while this thread reads the next one.
   */
  private async serveReads(port: MessagePort, { id, keys }: OpfsReadRequest): Promise<void> {
    let answer: Extract<OpfsReadReply, { values: unknown }> = { id, i: [], values: [], sums: [] };
    let transfer: ArrayBuffer[] = [];
    let bytes = 0;
    const send = () => {
      if (answer.i.length === 0) return;
      port.postMessage(answer, transfer);
      answer = { id, i: [], values: [], sums: [] };
      transfer = [];
      bytes = 0;
    };
    try {
      await this.engineOrThrow().readEach(keys, this.pageCheck, (i, value, sum) => {
        answer.i.push(i);
        answer.values.push(value);
        answer.sums.push(sum);
        const buffer = value?.buffer as ArrayBuffer | undefined;
        if (buffer && value && !transfer.includes(buffer)) {
          transfer.push(buffer);
          bytes += value.byteLength;
        }
        if (bytes >= READ_ANSWER_BYTES) send();
      });
      send();
    } catch (err) {
      send();
      const reply: OpfsReadReply = { id, error: serializeError(err) };
      port.postMessage(reply);
    }
  }

  async getMany(keys: string[]): Promise<OpfsReply<(Uint8Array | undefined)[]>> {
    const reply = await settle(() => this.engineOrThrow().getMany(keys));
    if (!reply.ok) return reply;
    // One reply for the whole batch; every value's buffer moves, none is copied.
    const transfer: ArrayBuffer[] = [];
    for (const v of reply.value) {
      const buffer = v?.buffer as ArrayBuffer | undefined;
      if (buffer && !transfer.includes(buffer)) transfer.push(buffer);
    }
    return Comlink.transfer(reply, transfer);
  }

  has(key: string): Promise<OpfsReply<boolean>> {
    return settle(() => this.engineOrThrow().has(key));
  }

  delete(key: string): Promise<OpfsReply<boolean>> {
    return this.inOrder(() => this.engineOrThrow().deleteKey(key));
  }

  async write(batch: Uint8Array, keys: string[]): Promise<OpfsReply<OpfsWriteResult>> {
    const reply = await this.inOrder(async () => ({
      errors: (await this.engineOrThrow().writeBatch(batch, keys)).map((e) =>
        e === undefined ? null : serializeError(e),
      ),
      buffer: batch.buffer as ArrayBuffer,
    }));
    // The buffer goes back to the page for its next batch (moved, not copied).
    return reply.ok ? Comlink.transfer(reply, [reply.value.buffer]) : reply;
  }

  flush(): Promise<OpfsReply<void>> {
    return this.inOrder(() => this.engineOrThrow().flush());
  }

  keys(): Promise<OpfsReply<string[]>> {
    return settle(() => this.engineOrThrow().keys());
  }

  clear(): Promise<OpfsReply<void>> {
    return this.inOrder(() => this.engineOrThrow().clear());
  }

  usage(): Promise<OpfsReply<EngineUsage>> {
    return settle(() => this.engineOrThrow().usage());
  }

  persistIndex(): Promise<OpfsReply<void>> {
    return this.inOrder(() => this.engineOrThrow().persistIndex());
  }

  close(): Promise<OpfsReply<void>> {
    return this.inOrder(async () => {
      const engine = this.engineOrThrow();
      this.engine = undefined;
      this.closed = true;
      this.channel?.close();
      this.channel = undefined;
      // The read port stays: reads sent after this are answered with a ClosedError.
      await engine.close();
    });
  }

  private async openEngine(a: OpfsOpenArgs): Promise<'sync' | 'async'> {
    const dir = await openDirectory(a.dir);
    const lockName = `medfusion-opfs:${a.dir}`;
    // Tell other stores (tabs, workers) on this directory when we write, so
    // they re-read the head before serving their next read.
    this.channel?.close();
    const ch = typeof BroadcastChannel === 'function' ? new BroadcastChannel(lockName) : undefined;
    const engine = new OpfsSegmentEngine(
      this.makeBackend(dir, a.backend),
      {
        maxBytes: a.maxBytes,
        segmentBytes: a.segmentBytes,
        snapshotDelayMs: a.snapshotDelayMs,
        flushDelayMs: a.flushDelayMs,
        ...(a.quotaBytes === undefined ? {} : { quotaBytes: a.quotaBytes }),
      },
      new WriterLease(lockName),
      await ValueChecksum.load(a.webAssembly),
      () => ch?.postMessage({ from: this.self }),
    );
    if (ch) {
      ch.onmessage = (ev: MessageEvent<{ from: string }>) => {
        if (ev.data?.from !== this.self) engine.markStale();
      };
    }
    await engine.open();
    this.channel = ch;
    this.engine = engine;
    return (await engine.usage()).backend;
  }

  /** The open engine; a ClosedError after close, a StoreError before open. */
  private engineOrThrow(): OpfsSegmentEngine {
    if (this.closed) throw new ClosedError('OpfsStore worker');
    if (!this.engine) throw new StoreError('STORE_FAILED', 'the OPFS store is not open');
    return this.engine;
  }

  /** Run `fn` after every earlier ordered call settled. */
  private inOrder<T>(fn: () => Promise<T>): Promise<OpfsReply<T>> {
    const reply = this.chain.then(() => settle(fn));
    this.chain = reply;
    return reply;
  }
}

/** `fn`'s value as a reply, or its error serialized. */
async function settle<T>(fn: () => T | Promise<T>): Promise<OpfsReply<T>> {
  try {
    return { ok: true, value: await fn() };
  } catch (err) {
    return { ok: false, error: serializeError(err) };
  }
}
