// Runs in Chromium (driven by bench/shards.ts): reads the same samples over
// HTTP one fetch per file, and from WebDataset shards with merged range requests.
import { shardPlan } from '@medfusion/core';
import { OriginLimiter, WebDatasetSource } from '@medfusion/web';

/** What the Node driver passes in. */
export interface ShardsBenchConfig {
  /** Base URL of the delayed server, e.g. `http://127.0.0.1:PORT/plain/`. */
  base: string;
  /** Sample keys in shard order (`sample000000`, ...). */
  keys: string[];
  /** Samples per shard. */
  shardSizes: number[];
  /** Gets kept in flight by the consumer (a prefetcher's depth). */
  concurrency: number;
  /** Plan lookahead of the shard source. */
  lookahead: number;
  /** Shards per shuffle window. */
  windowShards: number;
  /** Rows to run. */
  rows: string[];
}

/** One measured row. */
export interface ShardsRowResult {
  mode: string;
  samples: number;
  requests: number;
  wallMs: number;
  wrongLabels: number;
}

const dec = new TextDecoder();

/** Read `order` with `concurrency` loads in flight; returns wall ms. */
async function consume(
  order: Uint32Array,
  concurrency: number,
  load: (index: number) => Promise<number>,
): Promise<{ wallMs: number; wrong: number }> {
  let next = 0;
  let wrong = 0;
  const t0 = performance.now();
  const lane = async () => {
    while (next < order.length) {
      const index = order[next++] as number;
      const label = await load(index);
      if (label !== index % 10) wrong++;
    }
  };
  await Promise.all(Array.from({ length: concurrency }, lane));
  return { wallMs: performance.now() - t0, wrong };
}

async function runBench(cfg: ShardsBenchConfig): Promise<ShardsRowResult[]> {
  const total = cfg.keys.length;
  const order = shardPlan({ shardSizes: cfg.shardSizes, seed: 1, windowShards: cfg.windowShards });
  const sequential = shardPlan({ shardSizes: cfg.shardSizes, shuffle: false });
  const rows: ShardsRowResult[] = [];
  for (const mode of cfg.rows) {
    const status = document.getElementById('status');
    if (status) status.textContent = `running ${mode}`;
    if (mode === 'fetch-per-file' || mode === 'fetch-per-sample') {
      let requests = 0;
      const get = async (url: string) => {
        requests++;
        const res = await fetch(url, { cache: 'no-store' });
        if (!res.ok) throw new Error(`${url}: HTTP ${res.status}`);
        return new Uint8Array(await res.arrayBuffer());
      };
      const { wallMs, wrong } = await consume(order, cfg.concurrency, async (i) => {
        const key = cfg.keys[i] as string;
        if (mode === 'fetch-per-sample') {
          // Best case for per-file reading: one request per sample (label in its first byte).
          const png = await get(`${cfg.base}files/${key}.png`);
          return (png[0] as number) % 10;
        }
        const [, cls] = await Promise.all([
          get(`${cfg.base}files/${key}.png`),
          get(`${cfg.base}files/${key}.cls`),
        ]);
        return Number(dec.decode(cls));
      });
      rows.push({ mode, samples: total, requests, wallMs, wrongLabels: wrong });
      continue;
    }
    const sidecar = mode !== 'shards-streamed-index';
    const plan = mode === 'shards-sequential' ? sequential : order;
    let requests = 0;
    const counting: typeof fetch = (input, init) => {
      requests++;
      return fetch(input, init);
    };
    const t0 = performance.now();
    const source = await WebDatasetSource.open({
      manifestUrl: `${cfg.base}manifest.json`,
      fetch: counting,
      limiter: new OriginLimiter(6),
      lookahead: cfg.lookahead,
      ...(sidecar ? {} : { sidecar: false as const }),
    });
    source.setPlan(plan);
    const openMs = performance.now() - t0;
    const { wallMs, wrong } = await consume(plan, cfg.concurrency, async (i) => {
      const s = await source.get(i);
      return Number(dec.decode(s.files.cls));
    });
    source.close();
    rows.push({ mode, samples: total, requests, wallMs: wallMs + openMs, wrongLabels: wrong });
  }
  return rows;
}

(window as unknown as { runBench: typeof runBench }).runBench = runBench;
const status = document.getElementById('status');
if (status) status.textContent = 'ready';
