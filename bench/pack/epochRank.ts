// One rank of the epoch-1M row (bench/pack/epoch1m.ts), run as its own Node process:
// `tsx bench/pack/epochRank.ts <manifest url> <rank> <world> <ids out>`.
// Reads its part of one shuffled epoch as bench/pack/epochRead.ts says, its memory the
// process's resident size, and prints its report as one JSON line; the sample ids go to
// <ids out> as a Uint32Array.
import { writeFileSync } from 'node:fs';
import { readEpoch } from './epochRead.js';

const [manifestUrl, rankText, worldText, idsOut] = process.argv.slice(2);

async function main(): Promise<void> {
  const { report, ids } = await readEpoch(
    manifestUrl as string,
    Number(rankText),
    Number(worldText),
    () => process.memoryUsage().rss,
  );
  writeFileSync(idsOut as string, ids);
  console.log(JSON.stringify(report));
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
