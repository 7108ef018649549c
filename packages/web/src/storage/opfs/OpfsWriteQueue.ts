import { deserializeError } from '@medfusion/core/internal';
import * as Comlink from 'comlink';
import type { OpfsClient } from './OpfsClient.js';
import { packRecords } from './opfsWritePlan.js';

/** A put (or, with no value, a delete) waiting for the worker. Internal. */
export interface PendingWrite {
  key: string;
  keyLen: number;
  value: Uint8Array | undefined;
  resolve: () => void;
  reject: (e: unknown) => void;
}

/** Most bytes one write message carries (a larger burst goes as several, in order). */
const MAX_WRITE_BATCH_BYTES = 16 * 2 ** 20;

/**
 * The page side of {@link OpfsStore}'s writes: puts issued in one turn of the event loop are
 * packed into one buffer (up to 16 MiB per message) that moves to the worker and back, and
 * settle with the worker's answer per record. Internal.
 */
export class OpfsWriteQueue {
  private writes: PendingWrite[] = [];
  /** Write messages sent and not yet answered. */
  private inFlight = 0;
  private idle: (() => void)[] = [];
  /** Batch buffers the worker sent back, reused for the next batches. */
  private spare: ArrayBuffer[] = [];

  constructor(
    private readonly client: OpfsClient,
    /** Milliseconds since the epoch: each record's write time (the store's retention clock). */
    private readonly now: () => number,
  ) {}

  /** Queue `w`; the queue goes to the worker at the end of this turn. */
  push(w: PendingWrite): void {
    this.writes.push(w);
    if (this.writes.length === 1) queueMicrotask(() => this.send());
  }

  /** Reject every queued put with `err` (the worker is gone). */
  fail(err: unknown): void {
    for (const w of this.writes) w.reject(err);
    this.writes = [];
  }

  /** Pack the queued puts and send them, up to MAX_WRITE_BATCH_BYTES per message. */
  send(): void {
    const queued = this.writes;
    this.writes = [];
    let from = 0;
    while (from < queued.length) {
      let bytes = 0;
      let to = from;
      while (to < queued.length && (to === from || bytes < MAX_WRITE_BATCH_BYTES)) {
        bytes += queued[to]!.keyLen + (queued[to]!.value?.byteLength ?? 0);
        to++;
      }
      const batch = from === 0 && to === queued.length ? queued : queued.slice(from, to);
      this.sendBatch(batch);
      from = to;
    }
  }

  private sendBatch(batch: PendingWrite[]): void {
    const now = Math.floor(this.now() / 1000);
    const packed = packRecords(batch, this.spare.pop(), true, Math.max(0, now));
    const keys = batch.map((w) => w.key);
    this.inFlight++;
    this.client
      .call('write', (api) => api.write(Comlink.transfer(packed, [packed.buffer]), keys))
      .then(
        ({ errors, buffer }) => {
          if (this.spare.length < 2) this.spare.push(buffer);
          for (let i = 0; i < batch.length; i++) {
            const e = errors[i];
            if (e) batch[i]!.reject(deserializeError(e));
            else batch[i]!.resolve();
          }
        },
        (err) => {
          for (const w of batch) w.reject(err);
        },
      )
      .finally(() => {
        if (--this.inFlight === 0) for (const done of this.idle.splice(0)) done();
      });
  }

  /** Resolves once no put is queued or in flight. */
  async settled(): Promise<void> {
    if (this.writes.length > 0) this.send();
    if (this.inFlight === 0) return;
    await new Promise<void>((resolve) => this.idle.push(resolve));
  }
}
