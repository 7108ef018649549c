/**
 * The content of the shard fixtures, shared by the Node global setup (which
 * writes the files and packs them with GNU tar / hyparquet-writer) and the
 * browser tests (which check what the sources return). Pure functions, no
 * platform imports.
 */

/** Shards packed with `tar --format=gnu`, short names, each with a sidecar index. */
export const GNU_SHARDS = [
  { name: 'shard-000000.tar', samples: 24 },
  { name: 'shard-000001.tar', samples: 20 },
  { name: 'shard-000002.tar', samples: 28 },
] as const;

/** A shard packed with `tar --format=posix` (PAX headers) under a directory name longer than 100 bytes. */
export const PAX_SHARD = { name: 'long-pax.tar', samples: 6 } as const;

/** A shard packed with `tar --format=gnu` under a long directory name (GNU LongLink members). */
export const GNU_LONG_SHARD = { name: 'long-gnu.tar', samples: 6 } as const;

/** Directory inside the long-name shards. */
export const LONG_DIR = `${'deeply-nested-directory-'.repeat(5)}end`;

/** Parquet fixture: rows and rows per row group (written by hyparquet-writer). */
export const PARQUET = { name: 'table.parquet', rows: 60, rowGroupSize: 16 } as const;

/** Basename (WebDataset key, without extension) of sample `i` of shard `shard`. */
export function sampleKey(shard: number, i: number): string {
  return `sample${String(shard * 1000 + i).padStart(6, '0')}`;
}

function bytes(seed: number, length: number): Uint8Array {
  const out = new Uint8Array(length);
  let x = (seed * 2654435761) >>> 0 || 1;
  for (let k = 0; k < length; k++) {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    x >>>= 0;
    out[k] = x & 0xff;
  }
  return out;
}

/** The member files of one sample: extension → bytes. */
export function sampleFiles(shard: number, i: number): Record<string, Uint8Array> {
  const enc = new TextEncoder();
  const seed = shard * 1000 + i + 1;
  return {
    png: bytes(seed, 300 + ((shard * 31 + i * 97) % 1500)),
    cls: enc.encode(String((shard * 7 + i) % 10)),
    json: enc.encode(JSON.stringify({ shard, i, note: 'x'.repeat(i % 5) })),
  };
}

/** Parquet fixture row `r`: image bytes, two features and a label. */
export function parquetRow(r: number): {
  image: Uint8Array;
  age: number;
  bmi: number;
  label: number;
} {
  return {
    image: bytes(r + 7777, 64 + (r % 9) * 11),
    age: 20 + r,
    bmi: 18.5 + r / 4,
    label: r % 3,
  };
}

/** The URLs the global setup provides to tests through `inject`. */
export interface ShardServers {
  /** nginx serving the fixture directory, e.g. `http://127.0.0.1:PORT/`. */
  nginx: string;
  /** Node server with the same files that fails 20 % of requests (seeded). Prefix paths with a fresh run id: `${flaky}run-1/shard-000000.tar`. */
  flaky: string;
  /** Node server whose objects are replaced after `n` requests: `${changing}<runId>/<n>/<file>`. */
  changing: string;
  /** JSON statistics of a run on the Node servers: `${stats}<runId>` → `{ requests, maxInFlight }`. */
  stats: string;
}
