// The Node rows of `pnpm bench store` (`--only node`, and after the browser parts of a full
// run): puts and gets of @medfusion/node's LmdbStore against the plainest disk cache Node
// offers, one file per key (`fs.promises.writeFile` / `readFile` in one folder, the Buffer
// readFile returns handed out as it is), and against classic-level (LevelDB, the store of
// abstract-level; `valueEncoding: 'view'`), at 4 KB and 150 KB, N operations in flight.
// R rounds of puts (each from an empty folder). Then reads, each round in its own shuffled
// order, every value checked: `get-reopened`, a warm-up pass and R rounds each from a store
// opened for the round (a later run's first epoch: LMDB maps the file's pages anew, one page
// fault per page touched), and `get`, R rounds from one store opened once and read through
// once first (a job's later epochs). Round r runs the competitors rotated by r; a figure is
// the median round with its spread. Target: LMDB `get` >= 2x one-file-per-key.
import { mkdirSync, rmSync } from 'node:fs';
import { readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { LmdbStore } from '@medfusion/node';
import { ClassicLevel } from 'classic-level';
import { median, round } from '../_stats.js';
import { printTable } from '../_table.js';
import { permutation } from './epochRun.js';

/** The figures per competitor and size. */
const OPS = ['put', 'get', 'get-reopened'] as const;

/** One competitor: a key → bytes store on the local disk. */
interface NodeCompetitor {
  name: string;
  open(dir: string): Promise<{
    put(key: string, v: Uint8Array): Promise<void>;
    get(key: string): Promise<Uint8Array | undefined>;
    close(): Promise<void>;
  }>;
}

const competitors: NodeCompetitor[] = [
  {
    name: 'LmdbStore',
    async open(dir) {
      const s = new LmdbStore({ dir, maxBytes: 8 * 2 ** 30 });
      return { put: (k, v) => s.put(k, v), get: (k) => s.get(k), close: () => s.close() };
    },
  },
  {
    name: 'fs-file-per-key',
    async open(dir) {
      mkdirSync(dir, { recursive: true });
      const path = (k: string) => join(dir, encodeURIComponent(k));
      return {
        put: (k, v) => writeFile(path(k), v),
        get: async (k) => {
          try {
            return await readFile(path(k));
          } catch {
            return undefined;
          }
        },
        close: async () => {},
      };
    },
  },
  {
    name: 'classic-level',
    async open(dir) {
      const db = new ClassicLevel<string, Uint8Array>(dir, { valueEncoding: 'view' });
      await db.open();
      return {
        put: (k, v) => db.put(k, v),
        get: (k) => db.get(k),
        close: () => db.close(),
      };
    },
  },
];

function value(i: number, size: number): Uint8Array {
  const v = new Uint8Array(size);
  let x = (i + 1) * 2654435761;
  for (let j = 0; j < size; j += 4) {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    v[j] = x & 0xff;
  }
  return v;
}

/** Run `op(i)` for i in `order`, `concurrency` at a time; the ops per second. */
async function timed(order: number[], concurrency: number, op: (i: number) => Promise<void>) {
  let next = 0;
  const t0 = performance.now();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < order.length) await op(order[next++]!);
    }),
  );
  return order.length / ((performance.now() - t0) / 1000);
}

/** The Node rows: prints their table, returns the JSON line's rows (throughput and targets). */
export async function nodeRows(opts: {
  sizes: [count: number, bytes: number][];
  rounds: number;
  concurrency: number;
}): Promise<Record<string, unknown>[]> {
  const root = join(tmpdir(), `medfusion-bench-store-node-${process.pid}`);
  const rows: Record<string, unknown>[] = [];
  const lines: string[][] = [];
  try {
    for (const [count, bytes] of opts.sizes) {
      const values = Array.from({ length: count }, (_, i) => value(i, bytes));
      const figures = new Map<string, Record<(typeof OPS)[number], number[]>>();
      for (const c of competitors) figures.set(c.name, { put: [], get: [], 'get-reopened': [] });
      const dirOf = (c: NodeCompetitor) => join(root, `${c.name}-${bytes}`);
      for (let r = 0; r < opts.rounds; r++) {
        const k = r % competitors.length;
        const order = [...competitors.slice(k), ...competitors.slice(0, k)];
        for (const c of order) {
          rmSync(dirOf(c), { recursive: true, force: true });
          const s = await c.open(dirOf(c));
          const ops = await timed(permutation(count, r), opts.concurrency, (i) =>
            s.put(`ds@1/${i}`, values[i]!),
          );
          await s.close();
          figures.get(c.name)!.put.push(ops);
        }
      }
      const readRound = async (
        s: Awaited<ReturnType<NodeCompetitor['open']>>,
        c: NodeCompetitor,
        r: number,
      ) =>
        timed(permutation(count, 100 + r), opts.concurrency, async (i) => {
          const got = await s.get(`ds@1/${i}`);
          if (got?.length !== bytes || got[0] !== values[i]![0])
            throw new Error(`${c.name}: bad value ${i}`);
        });
      // get-reopened: every round from a store opened for it (a later run's first epoch)
      for (let r = -1; r < opts.rounds; r++) {
        const k = (r + competitors.length) % competitors.length;
        const order = [...competitors.slice(k), ...competitors.slice(0, k)];
        for (const c of order) {
          const s = await c.open(dirOf(c));
          const ops = await readRound(s, c, r);
          await s.close();
          if (r >= 0) figures.get(c.name)!['get-reopened'].push(ops); // r = -1: warm-up
        }
      }
      // get: every round from the same open store (a job's later epochs), after a first pass
      const open = new Map<NodeCompetitor, Awaited<ReturnType<NodeCompetitor['open']>>>();
      for (const c of competitors) open.set(c, await c.open(dirOf(c)));
      for (let r = -1; r < opts.rounds; r++) {
        const k = (r + competitors.length) % competitors.length;
        const order = [...competitors.slice(k), ...competitors.slice(0, k)];
        for (const c of order) {
          const ops = await readRound(open.get(c)!, c, 200 + r);
          if (r >= 0) figures.get(c.name)!.get.push(ops); // r = -1: the first pass after open
        }
      }
      for (const s of open.values()) await s.close();
      const base = figures.get('fs-file-per-key')!;
      for (const c of competitors) {
        const f = figures.get(c.name)!;
        for (const op of OPS) {
          const xs = f[op];
          const ratio = median(xs) / median(base[op]);
          rows.push({
            section: 'node',
            store: c.name,
            op,
            size: `${bytes / 1024}KB`,
            keys: count,
            opsPerSec: round(median(xs), 0),
            opsPerSecMin: round(Math.min(...xs), 0),
            opsPerSecMax: round(Math.max(...xs), 0),
            ratio: round(ratio, 2),
          });
          lines.push([
            c.name,
            op,
            `${bytes / 1024} KB`,
            String(count),
            String(round(median(xs), 0)),
            `${round(Math.min(...xs), 0)}-${round(Math.max(...xs), 0)}`,
            `${round(ratio, 2)}x`,
          ]);
        }
      }
      const lmdb = figures.get('LmdbStore')!;
      const level = figures.get('classic-level')!;
      rows.push({
        section: 'target',
        metric: `lmdbGetVsFilePerKey${bytes / 1024}KB`,
        ratio: round(median(lmdb.get) / median(base.get), 2),
        target: 2,
      });
      rows.push({
        section: 'node',
        metric: `lmdbGetReopenedVsFilePerKey${bytes / 1024}KB`,
        ratio: round(median(lmdb['get-reopened']) / median(base['get-reopened']), 2),
      });
      for (const op of ['get', 'put'] as const) {
        rows.push({
          section: 'node',
          metric: `lmdb${op === 'get' ? 'Get' : 'Put'}VsClassicLevel${bytes / 1024}KB`,
          ratio: round(median(lmdb[op]) / median(level[op]), 2),
        });
      }
    }
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
  console.log(
    `\nNode: LmdbStore vs one file per key and classic-level (${opts.concurrency} in flight, median round)`,
  );
  printTable(['store', 'op', 'size', 'keys', 'ops/s', 'spread', 'vs file-per-key'], lines);
  return rows;
}
