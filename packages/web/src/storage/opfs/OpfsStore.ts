import { ClosedError, type PersistentStore, type StoreValue } from '@medfusion/core';
import { checkStoreKey, checkStoreValue } from '@medfusion/core/internal';
import {
  type RetentionSettings,
  SweepTimer,
  sweepInterval,
} from '../retention/retentionOptions.js';
import { StoreError } from '../storeErrors.js';
import { ValueChecksum } from '../ValueChecksum.js';
import { OpfsClient } from './OpfsClient.js';
import { OpfsWriteQueue } from './OpfsWriteQueue.js';
import type { OpfsHostApi, OpfsOpenArgs, OpfsReply } from './opfsProtocol.js';
import {
  checkOpfsStoreOptions,
  type OpfsStoreOptions,
  type OpfsStoreUsage,
} from './opfsStoreOptions.js';
import { checkedKeyLength } from './opfsWritePlan.js';

interface PendingGet {
  key: string;
  resolve: (v: Uint8Array | undefined) => void;
  reject: (e: unknown) => void;
}

/**
 * Most reads one message carries (its reply moves at most this many buffers).
 * Measured: whole batches beat splitting them to overlap reading and consuming.
 */
const MAX_GET_BATCH = 64;

/**
 * Most read messages on their way to the worker or being answered at once; reads asked meanwhile
 * wait on this thread and go together in the next message. Two keep the worker busy (it has the
 * next batch when it finishes one) while batching the reads of a prefetching loader, which asks
 * for one sample at a time: each message costs the worker a 16-byte read of the directory's
 * head (seeing other stores' writes), which with one key a message was a third of its time.
 */
const MAX_READS_IN_FLIGHT = 2;

/**
 * Longest wait at the end of open() for the answer to `navigator.storage.persist()` (asked when
 * the store starts opening): browsers that decide alone answer well within it; a prompt the user
 * leaves open does not hold the store up longer.
 */
const PERSIST_ANSWER_WAIT_MS = 1000;

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/**
 * A {@link PersistentStore} in the Origin Private File System. Samples are
 * packed into large segment files with an offset index (per-file OPFS access
 * is slow); a dedicated worker reads and writes them through
 * `createSyncAccessHandle`, falling back to the async File System API where
 * sync handles are missing. Every entry carries its length and checksum and
 * is verified on read: a mismatch is a miss, never corrupt bytes. Puts issued
 * together are packed into one buffer that moves to the worker and goes to
 * disk as one sequential write; the flush is a group commit (see
 * `flushDelayMs`). Writers serialize through a Web Lock, so a crash, a reload
 * or a second tab never leaves half an entry.
 *
 * @example
 * const store = new OpfsStore({ dir: 'medfusion/xray', maxBytes: 2 * 2 ** 30, persist: true });
 * await store.put('xray@1/0', bytes);
 * const back = await store.get('xray@1/0'); // Uint8Array or undefined
 * await store.close();
 */
export class OpfsStore implements PersistentStore {
  /** The directory. */
  readonly dir: string;
  /** The byte budget of the segment files. */
  readonly maxBytes: number;
  private readonly args: OpfsOpenArgs;
  /** maxAge and the clock (on this thread: a Clock does not travel to the worker). */
  private readonly retention: RetentionSettings;
  private sweeper: SweepTimer | undefined;
  private readonly useWorker: boolean;
  private readonly persistAsked: boolean;
  private readonly client: OpfsClient;
  private ready: Promise<void> | undefined;
  private closed = false;
  private gets: PendingGet[] = [];
  /** Read messages sent and not yet settled (at most MAX_READS_IN_FLIGHT, but at close). */
  private readonly readsInFlight = new Set<Promise<void>>();
  /** A flush of `gets` is queued (a microtask). */
  private flushQueued = false;
  private opened = false;
  /** The puts on their way to the worker. */
  private readonly writes: OpfsWriteQueue;
  private persistedAnswer: boolean | undefined;
  /** Checks on this thread the values the worker reads (loaded at open). */
  private valueChecksum: ValueChecksum | undefined;

  constructor(options: OpfsStoreOptions) {
    const { args, callTimeoutMs, retention } = checkOpfsStoreOptions(options);
    this.retention = retention;
    this.dir = args.dir;
    this.maxBytes = args.maxBytes;
    this.args = args;
    this.client = new OpfsClient(this.dir, callTimeoutMs, (err) => this.failQueued(err));
    this.writes = new OpfsWriteQueue(this.client, () => this.retention.clock.now());
    this.useWorker = options.worker !== false; // checked: undefined or a boolean
    this.persistAsked = options.persist === true;
  }

  /** True where OPFS exists (navigator.storage.getDirectory). */
  static isSupported(): boolean {
    return (
      typeof navigator !== 'undefined' && typeof navigator.storage?.getDirectory === 'function'
    );
  }

  /** Open the store (done lazily by every method; call it to surface errors early). */
  open(): Promise<void> {
    if (this.closed) return Promise.reject(new ClosedError('OpfsStore'));
    this.ready ??= this.start();
    return this.ready;
  }

  private async start(): Promise<void> {
    if (!OpfsStore.isSupported()) {
      throw new StoreError(
        'STORE_UNAVAILABLE',
        'OPFS (navigator.storage.getDirectory) is not available here',
      );
    }
    const asked = this.persistAsked ? this.askPersistence() : undefined;
    this.valueChecksum = await ValueChecksum.load(this.args.webAssembly);
    await this.client.start(this.useWorker, {
      ...this.args,
      pageChecksXxh64: this.valueChecksum.algorithm === 'xxh64',
    });
    // An answer that comes while the store opens is in `persisted` at once; a prompt the user
    // leaves open (Firefox) does not hold up open(): its answer lands in `persisted` when given.
    if (asked) await Promise.race([asked, sleep(PERSIST_ANSWER_WAIT_MS)]);
    const { maxAge, clock } = this.retention;
    if (maxAge !== undefined) {
      // Expired records go for real now, then every sweep interval.
      await this.client.call('purge', (api) => api.purge(this.minTime(), null));
      this.sweeper = new SweepTimer(clock, sweepInterval(maxAge), async () => {
        if (!this.closed && !this.client.gone)
          await this.client.call('purge', (api) => api.purge(this.minTime(), null));
      });
      this.sweeper.start();
    }
    this.opened = true;
  }

  /** Records written before this (seconds since the epoch) are expired; 0 without maxAge. */
  private minTime(): number {
    const { maxAge, clock } = this.retention;
    return maxAge === undefined ? 0 : Math.max(0, Math.floor((clock.now() - maxAge) / 1000));
  }

  /** The host is gone: reject the reads and writes still queued here. */
  private failQueued(err: Error): void {
    this.writes.fail(err);
    for (const g of this.gets) g.reject(err);
    this.gets = [];
  }

  private async call<T>(
    op: string,
    invoke: (api: OpfsHostApi) => Promise<OpfsReply<T>>,
  ): Promise<T> {
    if (this.closed) throw new ClosedError('OpfsStore');
    await this.open();
    return this.client.call(op, invoke);
  }

  /**
   * The bytes stored under `key`, or undefined when absent or corrupt.
   * Reads issued together (in one turn of the event loop) travel to the
   * worker and back as one message.
   */
  async get(key: string): Promise<StoreValue | undefined> {
    checkStoreKey(key);
    if (this.closed) throw new ClosedError('OpfsStore');
    if (!this.opened) await this.open();
    return new Promise<Uint8Array | undefined>((resolve, reject) => {
      if (this.client.gone) return reject(this.client.gone);
      this.gets.push({ key, resolve, reject });
      if (!this.flushQueued && this.readsInFlight.size < MAX_READS_IN_FLIGHT) {
        this.flushQueued = true;
        queueMicrotask(() => this.flushGets());
      }
    });
  }

  /**
   * Send the queued reads, up to MAX_GET_BATCH per message and
   * MAX_READS_IN_FLIGHT messages at once (the rest wait for one to settle;
   * with `all`, as at close, every one goes now).
   * The worker answers each value as soon as it has read it and checked its
   * record's header and key; its bytes' checksum is checked here, on this
   * thread, while the worker reads the next one. A value that fails it is
   * read again through the worker's verifying path, which drops the entry:
   * no corrupt byte is ever returned.
   */
  private flushGets(all = false): void {
    this.flushQueued = false;
    while (this.gets.length > 0 && (all || this.readsInFlight.size < MAX_READS_IN_FLIGHT)) {
      const batch =
        this.gets.length <= MAX_GET_BATCH ? this.gets : this.gets.slice(0, MAX_GET_BATCH);
      this.gets = batch === this.gets ? [] : this.gets.slice(MAX_GET_BATCH);
      const keys = batch.map((g) => g.key);
      const read: Promise<void> = this.client
        .read(keys, this.minTime(), (j, value, sum) => {
          const g = batch[j]!;
          if (value === undefined || sum < 0 || this.valueChecksum?.matches(value, sum))
            g.resolve(value);
          else this.getVerified(g);
        })
        .catch((err: unknown) => {
          // Values already delivered stay delivered (a settled promise ignores this).
          for (const g of batch) g.reject(err);
        })
        .finally(() => {
          this.readsInFlight.delete(read);
          this.flushGets();
        });
      this.readsInFlight.add(read);
    }
  }

  /** Read `g.key` verified in the worker (a mismatch drops the entry there). */
  private getVerified(g: PendingGet): void {
    this.client
      .call('getMany', (api) => api.getMany([g.key], this.minTime()))
      .then(
        (values) => g.resolve(values[0]),
        (err: unknown) => g.reject(err),
      );
  }

  /**
   * Store `value` under `key`. Puts issued together (in one turn of the event
   * loop) are packed into one buffer that moves to the worker and is written
   * as one sequential append; the put resolves once its bytes are in the
   * segment file (a reload finds them), and they are flushed within
   * `flushDelayMs` (see {@link flush}). Rejects with StoreError
   * `QUOTA_EXCEEDED` when the browser refuses the bytes even after evicting.
   */
  async put(key: string, value: StoreValue): Promise<void> {
    checkStoreKey(key);
    checkStoreValue(value);
    const keyLen = checkedKeyLength(key);
    if (this.closed) throw new ClosedError('OpfsStore');
    if (!this.opened) await this.open();
    return new Promise<void>((resolve, reject) => {
      if (this.client.gone) return reject(this.client.gone);
      this.writes.push({ key, keyLen, value, resolve, reject });
    });
  }

  /**
   * Make every put issued before this call durable: sent, written and
   * flushed to disk (the group commit, now). Resolves once they are. A timed
   * commit that failed on the flush thread since the last call (its files are
   * flushed again here) is reported once, as a StoreError whose `cause` is
   * that error in its own class (`QUOTA_EXCEEDED` for a quota error).
   */
  async flush(): Promise<void> {
    if (this.closed) throw new ClosedError('OpfsStore');
    if (!this.opened) await this.open();
    this.writes.send();
    await this.client.call('flush', (api) => api.flush());
  }

  /** Remove `key`; true when it was present. */
  async delete(key: string): Promise<boolean> {
    checkStoreKey(key);
    return this.call('delete', (api) => api.delete(key));
  }

  /** Whether `key` is stored. */
  async has(key: string): Promise<boolean> {
    checkStoreKey(key);
    return this.call('has', (api) => api.has(key));
  }

  /** Every stored key. */
  async keys(): Promise<string[]> {
    return this.call('keys', (api) => api.keys());
  }

  /** Remove every entry and segment. */
  async clear(): Promise<void> {
    await this.call('clear', (api) => api.clear());
  }

  /**
   * Delete every record of the data set `fingerprint` (keys
   * `<fingerprint>/…`) for real: each segment file holding one (live or
   * superseded) is removed after the other data sets' records in it are
   * written again, so the bytes leave the disk. Resolves with how many
   * entries went; a fingerprint with no record is a no-op (0). Another store
   * (tab) on the directory reads them as misses from its next read on.
   */
  async forget(fingerprint: string): Promise<number> {
    checkStoreKey(fingerprint, 'fingerprint');
    if (this.closed) throw new ClosedError('OpfsStore');
    if (!this.opened) await this.open();
    await this.writes.settled();
    return this.call('purge', (api) => api.purge(0, `${fingerprint}/`));
  }

  /** Delete every record of every data set for real: every segment file is removed. Resolves with how many entries went. */
  async forgetAll(): Promise<number> {
    if (this.closed) throw new ClosedError('OpfsStore');
    if (!this.opened) await this.open();
    await this.writes.settled();
    const n = (await this.keys()).length;
    await this.clear();
    return n;
  }

  /** Entries, bytes, segments, evictions, quota errors, persistence. */
  async usage(): Promise<OpfsStoreUsage> {
    const u = await this.call('usage', (api) => api.usage());
    const out: OpfsStoreUsage = { ...u };
    if (this.persistedAnswer !== undefined) out.persisted = this.persistedAnswer;
    return out;
  }

  /** Write the index snapshot now (it is otherwise written shortly after changes and on close). */
  async persistIndex(): Promise<void> {
    await this.call('persistIndex', (api) => api.persistIndex());
  }

  /**
   * Answer of `navigator.storage.persist()` (true: the browser will not
   * evict this origin's data under storage pressure); undefined when
   * `persist` was not asked, the store is not open yet, or the browser has
   * not answered yet (Firefox asks the user, who may never answer: open()
   * does not wait for that).
   */
  get persisted(): boolean | undefined {
    return this.persistedAnswer;
  }

  /** Ask for persistent storage; `persistedAnswer` is set when (if ever) the browser answers. */
  private askPersistence(): Promise<void> {
    const ask = navigator.storage.persist?.() ?? Promise.resolve(false);
    return ask.then(
      (granted) => {
        this.persistedAnswer = granted;
      },
      () => {
        this.persistedAnswer = false;
      },
    );
  }

  /** Finish and flush the queued puts, persist the index, release the handles and stop the worker. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.sweeper?.stop();
    try {
      if (this.ready) {
        await this.ready.catch(() => {});
        if (!this.client.gone) await this.writes.settled();
        if (!this.client.gone) {
          // Reads asked before close() are answered, not refused as closed (each is bounded
          // by callTimeoutMs): the close goes on another channel, which may overtake them.
          this.flushGets(true);
          await Promise.all(this.readsInFlight);
          await this.client.call('close', (api) => api.close()).catch(() => {});
          // Calls sent before the close get the worker's own answer, not a cut.
          await this.client.idle();
        }
      }
    } finally {
      this.closed = true;
      this.client.stop(new ClosedError('OpfsStore'));
    }
  }

  /**
   * Stop the worker at once, abandoning writes in flight, as a crashed or
   * closed tab would. Entries whose write had not finished are lost, never
   * half-kept; a new store on the same `dir` finds every finished one.
   */
  terminate(): void {
    this.sweeper?.stop();
    this.closed = true;
    this.client.stop(new StoreError('STORE_WORKER_GONE', 'the OPFS store was terminated'));
  }
}
