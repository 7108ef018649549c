// LmdbStore's values as LMDB holds them, opened with lmdb itself (the store closed): what the
// tests that read or damage records on disk share.
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { type Database, open } from 'lmdb';

/** The store's `data` database in the folder `dir` (its newest data file), and how to close it. */
export function openRawData(dir: string): {
  data: Database<Uint8Array, string>;
  close(): Promise<void>;
} {
  const file = readdirSync(dir).find((n) => /^data-\d+\.mdb$/.test(n));
  if (!file) throw new Error(`no LMDB data file in ${dir}`);
  const env = open({ path: join(dir, file), maxDbs: 4, compression: false });
  const data = env.openDB<Uint8Array, string>({ name: 'data', encoding: 'binary' });
  return { data, close: () => env.close() };
}
