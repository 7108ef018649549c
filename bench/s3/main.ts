// Runs in Chromium (driven by bench/s3.ts): one epoch of the same shards from the same
// S3-compatible store, over presigned URLs (signUrl asks the stand-in backend) or plain HTTP.
import { shardPlan } from '@medfusion/core';
import { OriginLimiter, type SignUrl, WebDatasetSource } from '@medfusion/web';

/** What the Node driver passes in. */
export interface S3BenchConfig {
  /** The manifest's URL in the bucket (unsigned). */
  manifestUrl: string;
  /** The stand-in backend: `${backend}/sign?url=…` answers a presigned URL. */
  backend: string;
  /** Samples per shard. */
  shardSizes: number[];
  /** Gets kept in flight by the consumer. */
  concurrency: number;
  /** Plan lookahead of the shard source. */
  lookahead: number;
  /** Modes in the order to run them (one round). */
  modes: ('presigned' | 'http')[];
}

/** One measured epoch. */
export interface S3EpochResult {
  mode: 'presigned' | 'http';
  samples: number;
  wallMs: number;
  /** Requests to the store. */
  requests: number;
  /** Calls of the signUrl hook in this epoch (first signatures and re-signs; one hook for the run). */
  signCalls: number;
  /** Re-signs after an expired URL. */
  refreshes: number;
  wrongLabels: number;
}

const dec = new TextDecoder();

let backend = '';
let signCalls = 0;
let refreshes = 0;
/** One hook for the whole run, as an app has: its signed URLs outlive an epoch and expire. */
const signUrl: SignUrl = async (url, { signal, refresh }) => {
  signCalls++;
  if (refresh) refreshes++;
  const res = await fetch(`${backend}/sign?url=${encodeURIComponent(url)}`, { signal });
  return res.text();
};

async function epoch(cfg: S3BenchConfig, mode: 'presigned' | 'http'): Promise<S3EpochResult> {
  backend = cfg.backend;
  signCalls = 0;
  refreshes = 0;
  let requests = 0;
  const counting: typeof fetch = (input, init) => {
    requests++;
    return fetch(input, init);
  };
  const plan = shardPlan({ shardSizes: cfg.shardSizes, seed: 1, windowShards: 2 });
  const t0 = performance.now();
  const source = await WebDatasetSource.open({
    manifestUrl: cfg.manifestUrl,
    fetch: counting,
    limiter: new OriginLimiter(6),
    lookahead: cfg.lookahead,
    ...(mode === 'presigned' ? { signUrl } : {}),
  });
  source.setPlan(plan);
  let next = 0;
  let wrong = 0;
  const lane = async () => {
    while (next < plan.length) {
      const index = plan[next++] as number;
      const s = await source.get(index);
      if (Number(dec.decode(s.files.cls)) !== index % 10) wrong++;
    }
  };
  await Promise.all(Array.from({ length: cfg.concurrency }, lane));
  const wallMs = performance.now() - t0;
  source.close();
  return { mode, samples: plan.length, wallMs, requests, signCalls, refreshes, wrongLabels: wrong };
}

async function runBench(cfg: S3BenchConfig): Promise<S3EpochResult[]> {
  const out: S3EpochResult[] = [];
  for (const mode of cfg.modes) out.push(await epoch(cfg, mode));
  return out;
}

(window as unknown as { runBench: typeof runBench }).runBench = runBench;
const status = document.getElementById('status');
if (status) status.textContent = 'ready';
