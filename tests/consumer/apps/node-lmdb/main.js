// The seed's example (docs/node.md) with @medfusion/node alone: create_cached_dataset with
// cache_type "both" and a cache_dir, a DataLoader, two epochs, the stats after each. Run as
// `node main.js fill` (loads in worker threads, the disk tier filled in ./cache), then
// `node main.js offline` in a new process: the source fails, every sample comes from ./cache.
// Prints one JSON line; exits 0 when all is as expected.
import { threadId } from 'node:worker_threads';
import { createCachedDataset, createThreadExecutor, DataLoader, fromLoader } from '@medfusion/node';

const phase = process.argv[2];
const N = 64;
let sourceLoads = 0;
const executor =
  phase === 'fill'
    ? createThreadExecutor({ worker: new URL('./loader.worker.js', import.meta.url), poolSize: 2 })
    : undefined;
const dataset = fromLoader(N, async () => {
  sourceLoads++;
  throw new Error('offline: the source is gone');
});
const cached = createCachedDataset(dataset, {
  cacheType: 'both',
  cacheSize: 16,
  prefetchSize: 10,
  numWorkers: 4,
  cacheDir: './cache',
  maxSizeGB: 1,
  fingerprint: { name: 'seed', version: 1 },
  ...(executor ? { executor } : {}),
});
const loader = new DataLoader(cached, { batchSize: 8, shuffle: true, seed: 1 });
const epochs = [];
const threads = new Set();
for (let epoch = 0; epoch < 2; epoch++) {
  let rows = 0;
  for await (const batch of loader) {
    rows += batch.label.shape[0];
    for (const t of batch.thread?.data ?? []) threads.add(t);
  }
  await cached.flush();
  const s = cached.getCacheStats();
  epochs.push({
    rows,
    hitRate: s.hitRate,
    size: s.size,
    capacity: s.capacity,
    diskHits: s.diskHits,
  });
}
const stats = cached.getCacheStats();
await cached.close();
await executor?.close();
const result = {
  phase,
  epochs: epochs.map((e) => e.rows),
  diskHits: stats.diskHits,
  diskMisses: stats.diskMisses,
  sourceLoads,
  offMainThread: threads.size > 0 && !threads.has(threadId),
};
console.log(JSON.stringify(result));
const ok =
  result.epochs.every((r) => r === N) &&
  (phase === 'fill'
    ? result.offMainThread && stats.diskMisses === N
    : stats.diskHits >= N && sourceLoads === 0);
process.exit(ok ? 0 : 1);
