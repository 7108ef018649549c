// The Node epoch rows of `pnpm bench store` (with the Node rows: `--only node`, and at the end
// of a full run), the browser's epoch row (main.ts) in Node: one epoch of 150 KB samples over
// HTTP from the same throttled server (throttledServer.ts: 20 ms added latency, 100 Mbit/s
// shared, on 127.0.0.1) read with Node's fetch, against one epoch of the same samples from
// the disk tier, `createCachedDataset` from @medfusion/node with a `cacheDir` (an LmdbStore).
// The network's prefetch depth is picked on a slice of the order (as in the browser). Then R
// rounds, each: one full network epoch into a fresh `cacheDir` (the first epoch of a job,
// filling the disk behind it), then one disk epoch per prefetch depth of the disk sweep, each
// from a new dataset on that `cacheDir` with the network off (a later run), in another order,
// every sample a disk hit. Figures are median rounds with their spread; the disk depth with
// the lowest median is the one compared. Target: disk epoch >= 20x the network epoch.
import { rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createCachedDataset } from '@medfusion/node';
import { median, round } from '../_stats.js';
import { printTable } from '../_table.js';
import { epoch, httpSource, offlineSource, permutation } from './epochRun.js';
import { startThrottledServer } from './throttledServer.js';

/** Settings of {@link nodeEpochRows}. */
export interface NodeEpochConfig {
  /** Samples per epoch. */
  samples: number;
  /** Bytes per sample. */
  size: number;
  /** Samples of the slice the network depth is picked on. */
  sweepSamples: number;
  netSweep: number[];
  diskSweep: number[];
  rounds: number;
}

/** An epoch's disk tier: an LmdbStore in `cacheDir`, the way a Node job asks for one. */
const inDir =
  (cacheDir: string) =>
  (
    source: Parameters<typeof createCachedDataset<Uint8Array>>[0],
    common: Parameters<typeof createCachedDataset<Uint8Array>>[1],
  ) =>
    createCachedDataset(source, { ...common, cacheDir });

/** The Node epoch rows: prints their table, returns the JSON line's rows. */
export async function nodeEpochRows(cfg: NodeEpochConfig): Promise<Record<string, unknown>[]> {
  const net = await startThrottledServer({ latencyMs: 20, mbit: 100, size: cfg.size });
  const dir = join(tmpdir(), `medfusion-bench-store-node-epoch-${process.pid}`);
  const rows: Record<string, unknown>[] = [];
  const lines: string[][] = [];
  try {
    const order = permutation(cfg.samples, 7);
    const order2 = permutation(cfg.samples, 8);
    let best = cfg.netSweep[0]!;
    let bestMs = Number.POSITIVE_INFINITY;
    for (const p of cfg.netSweep) {
      const slice = order.slice(0, cfg.sweepSamples);
      const { ms } = await epoch(httpSource(net.url, cfg.samples), slice, cfg.size, p);
      console.error(`  node network sweep prefetch ${p}: ${ms.toFixed(0)} ms for ${slice.length}`);
      if (ms < bestMs) [bestMs, best] = [ms, p];
    }
    const netMs: number[] = [];
    const diskMs = new Map<number, number[]>(cfg.diskSweep.map((p) => [p, []]));
    for (let r = 0; r < cfg.rounds; r++) {
      rmSync(dir, { recursive: true, force: true });
      const n = await epoch(httpSource(net.url, cfg.samples), order, cfg.size, best, inDir(dir));
      netMs.push(n.ms);
      console.error(
        `  node network epoch (prefetch ${best}, filling the disk): ${n.ms.toFixed(0)} ms`,
      );
      const depths = [...cfg.diskSweep.slice(r % cfg.diskSweep.length), ...cfg.diskSweep];
      for (const p of depths.slice(0, cfg.diskSweep.length)) {
        const d = await epoch(offlineSource(cfg.samples), order2, cfg.size, p, inDir(dir));
        if (d.diskHits !== order2.length) throw new Error(`disk epoch: ${d.diskHits} disk hits`);
        diskMs.get(p)!.push(d.ms);
      }
    }
    const perSample = (ms: number) => ms / cfg.samples;
    const row = (source: string, p: number, ms: number[], isBest: boolean) => {
      const sps = (x: number) => (cfg.samples / x) * 1000;
      rows.push({
        section: 'epoch-node',
        source,
        prefetch: p,
        samples: cfg.samples,
        rounds: ms.length,
        wallMs: round(median(ms), 1),
        wallMsMin: round(Math.min(...ms), 1),
        wallMsMax: round(Math.max(...ms), 1),
        samplesPerSec: round(sps(median(ms)), 1),
        best: isBest,
      });
      lines.push([
        source,
        String(p),
        String(cfg.samples),
        median(ms).toFixed(0),
        `${Math.min(...ms).toFixed(0)}-${Math.max(...ms).toFixed(0)}`,
        sps(median(ms)).toFixed(0),
        isBest ? 'yes' : '',
      ]);
    };
    row('network', best, netMs, true);
    const bestDisk = cfg.diskSweep.reduce((a, b) =>
      median(diskMs.get(b)!) < median(diskMs.get(a)!) ? b : a,
    );
    for (const p of cfg.diskSweep) row('disk (LmdbStore)', p, diskMs.get(p)!, p === bestDisk);
    const d = diskMs.get(bestDisk)!;
    const ratio = perSample(median(netMs)) / perSample(median(d));
    rows.push({
      section: 'target',
      metric: 'nodeDiskEpochVsNetworkEpoch',
      ratio: round(ratio, 2),
      ratioMin: round(Math.min(...netMs) / Math.max(...d), 2),
      ratioMax: round(Math.max(...netMs) / Math.min(...d), 2),
      target: 20,
    });
    console.log(
      `\nNode epoch of ${cfg.size / 1024} KB samples: network (20 ms + 100 Mbit/s, fetch) vs the ` +
        `disk tier (createCachedDataset with cacheDir), ${cfg.rounds} rounds, median round`,
    );
    printTable(['source', 'prefetch', 'samples', 'wallMs', 'spread', 'samples/s', 'best'], lines);
    console.log(`Node disk epoch vs network epoch: ${ratio.toFixed(2)}x (target >= 20)`);
  } finally {
    await net.close();
    rmSync(dir, { recursive: true, force: true });
  }
  return rows;
}
