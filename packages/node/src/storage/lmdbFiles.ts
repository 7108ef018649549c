import { mkdirSync, readdirSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { type Database, open, type RootDatabase } from 'lmdb';

/**
 * The files of an {@link LmdbStore} directory (internal): one LMDB environment per
 * *generation*, `data-<gen>.mdb` and its lock file `data-<gen>.mdb-lock`. `compact()` builds
 * the next generation as `building-<gen>.mdb`, renames it, marks the old one as moved (its
 * `ctl` database's `moved` key names the new generation) and removes it; other instances read
 * the mark at their next call and move too.
 */

/** The databases of one generation. */
export interface Generation {
  gen: number;
  root: RootDatabase;
  /** key → record (lmdbRecord.ts). */
  data: Database<Uint8Array, string>;
  /** key → `[length u32 | write time u32]` of its record: the index the LRU is built from. */
  meta: Database<Uint8Array, string>;
  /** `seq` (bumped by every write), `moved` (the next generation), `sealed` (1: records are sealed). */
  ctl: Database<number, string>;
}

/** File name of generation `gen`. */
export const dataFile = (gen: number): string => `data-${gen}.mdb`;

/** The newest generation in `dir` (0 when none); older ones and unfinished builds are removed. */
export function newestGeneration(dir: string): number {
  mkdirSync(dir, { recursive: true });
  const names = readdirSync(dir);
  let newest = 0;
  for (const n of names) {
    const m = /^data-(\d+)\.mdb$/.exec(n);
    if (m) newest = Math.max(newest, Number(m[1]));
  }
  for (const n of names) {
    const m = /^(?:data|building)-(\d+)\.mdb(?:-lock)?$/.exec(n);
    if (m && (n.startsWith('building') || Number(m[1]) < newest)) removeFile(join(dir, n));
  }
  return newest;
}

/** Open generation `gen` of `dir`. */
export function openGeneration(dir: string, gen: number): Generation {
  const root = open({ path: join(dir, dataFile(gen)), maxDbs: 4, compression: false });
  return {
    gen,
    root,
    data: root.openDB<Uint8Array, string>({ name: 'data', encoding: 'binary' }),
    meta: root.openDB<Uint8Array, string>({ name: 'meta', encoding: 'binary' }),
    ctl: root.openDB<number, string>({ name: 'ctl', encoding: 'ordered-binary' }),
  };
}

/**
 * The value of `key` in `db` without lmdb's copy: a view into lmdb's reusable read buffer,
 * valid only until the next read of any database of the process (copy what must outlive that).
 * lmdb marks the value's end by shadowing that buffer's `length`, which `subarray`, `set` and
 * `Buffer.from` do not see: the view has the real length.
 */
export function readFast(db: Database<Uint8Array, string>, key: string): Uint8Array | undefined {
  const b = db.getBinaryFast(key);
  return b === undefined ? undefined : new Uint8Array(b.buffer, b.byteOffset, b.length);
}

/** Remove a file (gone already is fine). */
export function removeFile(path: string): void {
  rmSync(path, { force: true });
}

/** Bytes of generation `gen`'s data file (0 when missing). */
export function fileBytes(dir: string, gen: number): number {
  try {
    return statSync(join(dir, dataFile(gen))).size;
  } catch {
    return 0;
  }
}

/** `[length, time]` of a record, as the meta database keeps them. */
export function encodeMeta(length: number, time: number): Uint8Array {
  const b = Buffer.allocUnsafe(8);
  b.writeUInt32LE(length >>> 0, 0);
  b.writeUInt32LE(time >>> 0, 4);
  return b;
}

/** The `[length, time]` of a meta value, or undefined when it is not one. */
export function decodeMeta(
  v: Uint8Array | undefined,
): { length: number; time: number } | undefined {
  if (v?.length !== 8) return undefined;
  const b = Buffer.from(v.buffer, v.byteOffset, 8);
  return { length: b.readUInt32LE(0), time: b.readUInt32LE(4) };
}
