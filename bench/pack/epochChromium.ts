// The Chromium epoch of the epoch-1M row (issue 45): Debian's Chromium (headless, Playwright)
// opens bench/pack/epochPage/ (bundled by Vite, served on 127.0.0.1) and reads one shuffled
// epoch over the shards nginx serves on another origin (CORS), one rank of worldSize 1: a
// browser tab trains alone, so it reads the whole epoch (rank 0 of 4 would read a quarter,
// which the Node ranks already show). A fresh browser context per epoch (as each Node rank is
// a fresh process). Besides the page's own figures (bench/pack/epochRead.ts: wall time, first
// batch, the source's bytes, the JS heap), the bytes the browser received from the network
// while the epoch ran (the DevTools protocol's `Network.loadingFinished` encodedDataLength,
// headers included: the shards, their sidecars and the manifest), counted by Chromium itself.
import { chromium } from 'playwright';
import { chromiumLaunchOptions } from '../_chromium.js';
import { callBenchPage, openBenchPage, previewBenchPage } from '../_page.js';
import type { EpochPageConfig, EpochPageResult } from './epochPage/main.js';

/** One Chromium epoch: the page's report and what the network carried. */
export interface ChromiumEpoch extends EpochPageResult {
  /** Bytes Chromium received for the requests that finished, headers included. */
  networkBytes: number;
  /** Requests that finished / failed (a failed one is not in `networkBytes`). */
  networkRequests: number;
  networkFailed: number;
}

/**
 * `rounds` Chromium epochs over the manifest at `manifestUrl` (`count` samples); the page is
 * bundled into `outDir`. Each round's epoch as it ends goes to `onEpoch`.
 */
export async function chromiumEpochs(
  manifestUrl: string,
  count: number,
  rounds: number,
  outDir: string,
  onEpoch: (epoch: ChromiumEpoch, round: number) => void,
): Promise<ChromiumEpoch[]> {
  const server = await previewBenchPage('pack/epochPage', outDir);
  const browser = await chromium.launch(chromiumLaunchOptions(['--enable-precise-memory-info']));
  const epochs: ChromiumEpoch[] = [];
  try {
    for (let r = 0; r < rounds; r++) {
      const context = await browser.newContext();
      try {
        const page = await openBenchPage(context, server.url, 'runEpoch');
        const cdp = await context.newCDPSession(page);
        // Keep no response bodies for DevTools (the default keeps up to 100 MB of them).
        await cdp.send('Network.enable', { maxTotalBufferSize: 1024, maxResourceBufferSize: 1024 });
        let networkBytes = 0;
        let networkRequests = 0;
        let networkFailed = 0;
        const pending = new Set<string>();
        cdp.on('Network.requestWillBeSent', (e) => pending.add(e.requestId));
        cdp.on('Network.loadingFinished', (e) => {
          pending.delete(e.requestId);
          networkBytes += e.encodedDataLength;
          networkRequests++;
        });
        cdp.on('Network.loadingFailed', (e) => {
          pending.delete(e.requestId);
          networkFailed++;
        });
        const cfg: EpochPageConfig = { manifestUrl, count, rank: 0, worldSize: 1 };
        const res = await callBenchPage<EpochPageConfig, EpochPageResult>(page, 'runEpoch', cfg);
        // The protocol's events may trail the page's result: wait for every request's end.
        for (let waited = 0; pending.size > 0 && waited < 5000; waited += 50)
          await new Promise((r) => setTimeout(r, 50));
        if (pending.size > 0) console.error(`  ${pending.size} requests never ended (not counted)`);
        const epoch = { ...res, networkBytes, networkRequests, networkFailed };
        epochs.push(epoch);
        onEpoch(epoch, r);
      } finally {
        await context.close();
      }
    }
  } finally {
    await browser.close();
    await server.close();
  }
  return epochs;
}
