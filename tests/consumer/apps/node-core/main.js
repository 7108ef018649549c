// A Node script with @medfusion/core only: a data set read twice through the
// cache (memory + a disk tier behind a PersistentStore) and a DataLoader.
// Prints one JSON line with what it saw; exits 0 when all is as expected.
import {
  createCachedDataset,
  DataLoader,
  fromLoader,
  LRUCache,
  MemoryStore,
} from '@medfusion/core';

let loads = 0;
const source = fromLoader(40, async (index) => {
  loads++;
  return { features: new Float32Array([index, index * 2, index * 3]), label: index % 3 };
});
const cached = createCachedDataset(source, {
  cacheType: 'both',
  cacheSize: 10,
  prefetchSize: 4,
  store: new MemoryStore(),
});
const loader = new DataLoader(cached, { batchSize: 8, shuffle: true, seed: 3 });
const seen = [];
for (let epoch = 0; epoch < 2; epoch++) {
  let rows = 0;
  for await (const batch of loader) rows += batch.label.shape[0];
  await cached.flush();
  seen.push(rows);
}
const stats = cached.getCacheStats();
await cached.close();
const lru = new LRUCache({ capacity: 2 });
lru.set('a', 1).set('b', 2).set('c', 3);
const result = { seen, loads, diskHits: stats.diskHits, lruHasA: lru.has('a'), lruSize: lru.size };
console.log(JSON.stringify(result));
const ok = seen.every((n) => n === 40) && loads === 40 && stats.diskHits > 0 && !result.lruHasA;
process.exit(ok ? 0 : 1);
