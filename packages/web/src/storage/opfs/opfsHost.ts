import { ClosedError } from '@medfusion/core';
import { serializeError, showValue } from '@medfusion/core/internal';
import * as Comlink from 'comlink';
import { holdLockForever } from '../../workers/workerLiveness.js';
import { RecordCipher } from '../encryption/RecordCipher.js';
import { StoreError } from '../storeErrors.js';
import { ValueChecksum } from '../ValueChecksum.js';
import { asyncBackend } from './opfsAsyncFallback.js';
import { type FileBackend, openDirectory } from './opfsFiles.js';
import {
  OPFS_PROTOCOL_VERSION,
  type OpfsHostApi,
  type OpfsHostUsage,
  type OpfsOpenArgs,
  type OpfsReadReply,
  type OpfsReadRequest,
  type OpfsReply,
  type OpfsWriteResult,
  opfsMessage,
} from './opfsProtocol.js';
import {
  checkEncryptionMarker,
  OpfsSealing,
  type SealingBatch,
  setEncryptionMarker,
} from './opfsSealing.js';
import { OpfsSegmentEngine, type ReadCheck } from './opfsSegmentEngine.js';
import { WriterLease } from './opfsWriterLease.js';

/**
 * Bytes of values one streamed read answer gathers before it goes: a large
 * value goes alone, as soon as it is read; small ones share a message.
 */
const READ_ANSWER_BYTES = 64 * 1024;

/**
 * Builds a file backend for a directory; `kind` chooses sync handles when
 * they work; `quotaBytes` is the store's simulated quota (tests), if any.
 */
export type BackendFactory = (
  dir: FileSystemDirectoryHandle,
  kind: OpfsOpenArgs['backend'],
  quotaBytes: number | undefined,
) => FileBackend | Promise<FileBackend>;

/**
 * Serves {@link OpfsHostApi} with one segment engine, in the OPFS worker or,
 * where workers are missing, on the calling thread. Reads run at once
 * (checksums guard them); opens, writes, clears and closes keep their order.
 * Internal.
 */
export class OpfsHost implements OpfsHostApi {
  private engine: OpfsSegmentEngine | undefined;
  /** Seals and opens values when the store has an encryption key. */
  private sealing: OpfsSealing | undefined;
  /** Records purged for their age (`maxAge`). */
  private expired = 0;
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
      if (args.protocol !== OPFS_PROTOCOL_VERSION) {
        // e.g. a worker script cached from another release
        throw new StoreError(
          'STORE_FAILED',
          `the OPFS worker speaks protocol ${OPFS_PROTOCOL_VERSION}, the page ${showValue(args.protocol)}`,
        );
      }
      const kind = await this.openEngine(args);
      // Sealed values: the GCM tag, checked here, authenticates them (no checksum on top).
      this.pageCheck = args.pageChecksXxh64 === false && !this.sealing ? 'caller-xxh32' : 'caller';
      if (reads) {
        this.readPort?.close();
        this.readPort = reads;
        reads.onmessage = (ev: MessageEvent<unknown>) => {
          const req = opfsMessage<OpfsReadRequest>(ev.data);
          // Not of this protocol version: nothing to answer it with (the page's call times out).
          if (req?.type === 'read') void this.serveReads(reads, req);
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
  private async serveReads(
    port: MessagePort,
    { id, keys, minTime }: OpfsReadRequest,
  ): Promise<void> {
    const fresh = (): Extract<OpfsReadReply, { type: 'values' }> => ({
      v: OPFS_PROTOCOL_VERSION,
      type: 'values',
      id,
      i: [],
      values: [],
      sums: [],
    });
    let answer = fresh();
    let transfer: ArrayBuffer[] = [];
    let bytes = 0;
    const send = () => {
      if (answer.i.length === 0) return;
      port.postMessage(answer, transfer);
      answer = fresh();
      transfer = [];
      bytes = 0;
    };
    const add = (i: number, value: Uint8Array | undefined, sum: number) => {
      answer.i.push(i);
      answer.values.push(value);
      answer.sums.push(sum);
      const buffer = value?.buffer as ArrayBuffer | undefined;
      if (buffer && value && !transfer.includes(buffer)) {
        transfer.push(buffer);
        bytes += value.byteLength;
      }
      if (bytes >= READ_ANSWER_BYTES) send();
    };
    // Values being opened (sealed ones): each goes as soon as it is plaintext.
    const opening: Promise<void>[] = [];
    try {
      const engine = this.engineOrThrow();
      engine.minTime = minTime;
      const sealing = this.sealing;
      // Sealed values are read into one reused buffer: WebCrypto copies each as it starts
      // opening it, and the plaintext it returns is the fresh buffer that goes to the page.
      await engine.readEach(
        keys,
        this.pageCheck,
        (i, value, sum) => {
          if (!sealing || value === undefined) return add(i, value, sum);
          const loc = engine.entryOf(keys[i]!);
          opening.push(sealing.open(keys[i]!, value, loc, true).then((plain) => add(i, plain, -1)));
        },
        sealing !== undefined,
      );
      await Promise.all(opening);
      send();
    } catch (err) {
      await Promise.allSettled(opening);
      send();
      const reply: OpfsReadReply = {
        v: OPFS_PROTOCOL_VERSION,
        type: 'error',
        id,
        error: serializeError(err),
      };
      port.postMessage(reply);
    }
  }

  async getMany(keys: string[], minTime: number): Promise<OpfsReply<(Uint8Array | undefined)[]>> {
    const reply = await settle(async () => {
      const engine = this.engineOrThrow();
      engine.minTime = minTime;
      const values = await engine.getMany(keys);
      const sealing = this.sealing;
      if (!sealing) return values;
      return Promise.all(
        values.map((v, i) =>
          v === undefined ? v : sealing.open(keys[i]!, v, engine.entryOf(keys[i]!)),
        ),
      );
    });
    if (!reply.ok) return reply;
    // One reply for the whole batch; every value's buffer moves, none is copied.
    const transfer: ArrayBuffer[] = [];
    for (const v of reply.value) {
      const buffer = v?.buffer as ArrayBuffer | undefined;
      if (buffer && !transfer.includes(buffer)) transfer.push(buffer);
    }
    return Comlink.transfer(reply, transfer);
  }

  purge(minTime: number, prefix: string | null): Promise<OpfsReply<number>> {
    return this.inOrder(async () => {
      const engine = this.engineOrThrow();
      engine.minTime = Math.max(engine.minTime, minTime);
      const n = await engine.purge({ minTime, ...(prefix === null ? {} : { prefix }) });
      if (prefix === null) this.expired += n;
      return n;
    });
  }

  has(key: string): Promise<OpfsReply<boolean>> {
    return settle(() => this.engineOrThrow().has(key));
  }

  delete(key: string): Promise<OpfsReply<boolean>> {
    return this.inOrder(() => this.engineOrThrow().deleteKey(key));
  }

  async write(batch: Uint8Array, keys: string[]): Promise<OpfsReply<OpfsWriteResult>> {
    // Sealing starts now (the crypto overlaps earlier writes); written in order, each
    // record as soon as it is sealed (the next ones are sealed meanwhile).
    const sealing = this.sealing;
    let sealed: SealingBatch | undefined;
    let sealFailure: unknown;
    try {
      sealed = sealing?.sealBatch(batch, keys);
    } catch (err) {
      sealFailure = err;
    }
    const reply = await this.inOrder(async () => {
      const engine = this.engineOrThrow();
      if (sealFailure !== undefined) throw sealFailure;
      const errors =
        sealing && sealed
          ? await sealing.writeSealed(sealed, keys)
          : await engine.writeBatch(batch, keys);
      return {
        errors: errors.map((e) => (e === undefined ? null : serializeError(e))),
        buffer: batch.buffer as ArrayBuffer,
      };
    });
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

  usage(): Promise<OpfsReply<OpfsHostUsage>> {
    return settle(async () => {
      const u = await this.engineOrThrow().usage();
      const c = this.sealing?.counters;
      return {
        ...u,
        undecryptable: c?.undecryptable ?? 0,
        reencrypted: c?.reencrypted ?? 0,
        previousKeyDropped: c?.previousKeyDropped ?? 0,
        expired: this.expired,
      };
    });
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
    const fs = await this.makeBackend(dir, a.backend, a.quotaBytes);
    const firstSealed = await checkEncryptionMarker(fs, a.dir, a.encryption !== undefined);
    const engine = new OpfsSegmentEngine(
      fs,
      {
        encrypted: a.encryption !== undefined,
        maxBytes: a.maxBytes,
        segmentBytes: a.segmentBytes,
        snapshotDelayMs: a.snapshotDelayMs,
        flushDelayMs: a.flushDelayMs,
        ...(a.quotaBytes === undefined ? {} : { quotaBytes: a.quotaBytes }),
      },
      new WriterLease(lockName, async () => fs.letGo?.()),
      await ValueChecksum.load(a.webAssembly),
      () => ch?.postMessage({ from: this.self }),
    );
    if (ch) {
      ch.onmessage = (ev: MessageEvent<{ from: string }>) => {
        if (ev.data?.from !== this.self) engine.markStale();
      };
    }
    await engine.open();
    if (firstSealed) {
      // Plaintext written before encryption was turned on leaves the files first.
      await engine.wipePlain(() => setEncryptionMarker(fs));
    }
    this.channel = ch;
    this.engine = engine;
    this.sealing = a.encryption
      ? new OpfsSealing(new RecordCipher(a.encryption), {
          entryOf: (key) => engine.entryOf(key),
          inOrder: (fn) => void this.inOrder(fn),
          writeBatch: (bytes, keys) => engine.writeBatch(bytes, keys),
          deleteKey: (key) => engine.deleteKey(key),
        })
      : undefined;
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
