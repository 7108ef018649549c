/// <reference lib="webworker" />
// Bench only: the physical ceiling of the disk tier, measured with one raw OPFS
// SyncAccessHandle in a dedicated worker (what OpfsStore's worker uses), and the
// per-stage costs of a put that live in a worker (write, flush, Web Lock, checksum).
// Timed inside the worker with performance.now(): no messaging in the figures.
import { checksum } from '@medfusion/core';
import { createXXHash64 } from 'hash-wasm';

import type { SyncHandle } from './syncHandle.js';

/** A request to the raw-handle worker. */
export type RawRequest =
  | { op: 'write'; count: number; bytes: number; flushEveryMs: number }
  | { op: 'read'; order: number[]; bytes: number }
  | { op: 'stages'; count: number; bytes: number; batch: number }
  | { op: 'readStages'; order: number[]; bytes: number }
  | { op: 'close' };

/** Its answer: elapsed ms of the timed loop, or per-stage ms per record. */
export type RawReply = { ms: number } | { stages: Record<string, number> } | { error: string };

const FILE = 'bench-raw-handle.bin';
let handle: SyncHandle | undefined;

async function open(): Promise<SyncHandle> {
  if (handle) return handle;
  const root = await navigator.storage.getDirectory();
  const fh = (await root.getFileHandle(FILE, { create: true })) as FileSystemFileHandle & {
    createSyncAccessHandle(): Promise<SyncHandle>;
  };
  handle = await fh.createSyncAccessHandle();
  return handle;
}

/**
 * Sequential writes of `count` records (one write call each) from one reused
 * buffer, with OpfsStore's default durability: a flush once `flushEveryMs`
 * passed since the last one (its group commit); the last flush is left out of
 * the time, as the store's is.
 */
async function writeCeiling(count: number, bytes: number, flushEveryMs: number): Promise<number> {
  const h = await open();
  h.truncate(0);
  h.flush();
  const rec = new Uint8Array(bytes).fill(7);
  const t0 = performance.now();
  let flushed = t0;
  for (let i = 0; i < count; i++) {
    h.write(rec, { at: i * bytes });
    const now = performance.now();
    if (now - flushed >= flushEveryMs) {
      h.flush();
      flushed = performance.now();
    }
  }
  const ms = performance.now() - t0;
  h.flush();
  return ms;
}

/** One read per sample into a fresh buffer (the caller owns what it gets), in `order`. */
async function readCeiling(order: number[], bytes: number): Promise<number> {
  const h = await open();
  let sink = 0;
  const t0 = performance.now();
  for (const i of order) {
    const buf = new Uint8Array(bytes);
    sink += h.read(buf, { at: i * bytes });
  }
  const ms = performance.now() - t0;
  if (sink !== order.length * bytes) throw new Error(`short reads: ${sink} bytes`);
  return ms;
}

/** Per-record cost of each worker-side stage of a put, for `count` records in batches of `batch`. */
async function stages(
  count: number,
  bytes: number,
  batch: number,
): Promise<Record<string, number>> {
  const h = await open();
  h.truncate(0);
  const rec = new Uint8Array(bytes).fill(3);
  const t = { checksum: 0, checksum64: 0, write: 0, flush: 0, lock: 0 };
  const xxh64 = await createXXHash64();
  let at = 0;
  let sink = 0;
  for (let i = 0; i < count; i += batch) {
    const n = Math.min(batch, count - i);
    let t0 = performance.now();
    await navigator.locks.request('bench-raw-handle', async () => {});
    t.lock += performance.now() - t0;
    t0 = performance.now();
    for (let j = 0; j < n; j++) sink ^= checksum(rec);
    t.checksum += performance.now() - t0;
    t0 = performance.now();
    for (let j = 0; j < n; j++) sink ^= xxh64.init().update(rec).digest('binary')[7]!;
    t.checksum64 += performance.now() - t0;
    t0 = performance.now();
    for (let j = 0; j < n; j++) {
      h.write(rec, { at });
      at += bytes;
    }
    t.write += performance.now() - t0;
    t0 = performance.now();
    h.flush();
    t.flush += performance.now() - t0;
  }
  if (sink === 0.5) console.log(sink);
  return {
    checksum: t.checksum / count,
    checksum64: t.checksum64 / count,
    write: t.write / count,
    flush: t.flush / count,
    lock: t.lock / count,
  };
}

/**
 * Where a read's time goes, per record, over the records the last `stages` call
 * wrote (read in `order`): a read into a fresh buffer (what a get that hands the
 * caller its own bytes must do), the same reads into one reused buffer (the
 * disk and the handle alone), and a fresh buffer of the same size allocated and
 * filled with no read at all (the memory alone).
 */
async function readStages(order: number[], bytes: number): Promise<Record<string, number>> {
  const h = await open();
  const reused = new Uint8Array(bytes);
  let sink = 0;
  let t0 = performance.now();
  for (const i of order) sink += h.read(new Uint8Array(bytes), { at: i * bytes });
  const fresh = (performance.now() - t0) / order.length;
  t0 = performance.now();
  for (const i of order) sink += h.read(reused, { at: i * bytes });
  const reusedMs = (performance.now() - t0) / order.length;
  t0 = performance.now();
  for (const i of order) {
    const b = new Uint8Array(bytes);
    b.fill(i & 255);
    sink += b[bytes - 1]!;
  }
  const alloc = (performance.now() - t0) / order.length;
  if (sink === 0.5) console.log(sink);
  return { fresh, reused: reusedMs, alloc };
}

self.onmessage = async (ev: MessageEvent<RawRequest>) => {
  const m = ev.data;
  try {
    let reply: RawReply;
    if (m.op === 'write') reply = { ms: await writeCeiling(m.count, m.bytes, m.flushEveryMs) };
    else if (m.op === 'read') reply = { ms: await readCeiling(m.order, m.bytes) };
    else if (m.op === 'stages') reply = { stages: await stages(m.count, m.bytes, m.batch) };
    else if (m.op === 'readStages') reply = { stages: await readStages(m.order, m.bytes) };
    else {
      handle?.close();
      handle = undefined;
      const root = await navigator.storage.getDirectory();
      await root.removeEntry(FILE).catch(() => {});
      reply = { ms: 0 };
    }
    self.postMessage(reply);
  } catch (err) {
    self.postMessage({ error: String(err) });
  }
};
