// The cold-epoch row of `pnpm bench pack`: the demo's cold epoch from `--decode` shards
// against per-file PNG over HTTP, in Chromium.

/** The cold-epoch rows (not measured yet: the row says so). */
export function runColdEpoch(_tmp: string, _bin: string): Record<string, unknown>[] {
  console.error('cold-epoch-decoded-vs-png: not measured yet (bench/pack/epoch.ts)');
  return [{ name: 'cold-epoch-decoded-vs-png', ratio: null, note: 'not measured yet' }];
}
