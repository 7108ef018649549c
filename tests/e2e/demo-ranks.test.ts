// The demo's "Four ranks, one epoch" panel: four Web Workers read one epoch of the
// remote shards as ranks 0-3 of worldSize 4. Together they deliver every sample of
// the epoch exactly once, and each fetches the shards it reads once, whole (their sha256 checked).
import { join } from 'node:path';
import type { Browser, Page } from 'playwright';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { waitReady } from './demoPage.js';
import {
  ARTIFACTS,
  generateSmallDataset,
  launchChromium,
  type RunningDemo,
  startDemo,
} from './demoServer.js';

const SAMPLES = 600; // 3 shards of 200
let demo: RunningDemo;
let browser: Browser;
let page: Page;
const errors: string[] = [];

describe('demo: four ranks share one epoch', () => {
  beforeAll(async () => {
    demo = await startDemo(generateSmallDataset(SAMPLES));
    browser = await launchChromium();
    page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    page.on('pageerror', (err) => errors.push(`uncaught ${err.message}`));
  });

  afterAll(async () => {
    await browser?.close();
    await demo?.stop();
  });

  it('the four ranks cover the epoch exactly once, each fetching the shards it reads once, whole', async () => {
    await page.goto(`${demo.url}?backend=cpu`);
    await waitReady(page);
    await page.click('#ranks-run');
    // live: the tiles fill while the workers read
    await page.waitForFunction(
      () =>
        [...document.querySelectorAll<HTMLElement>('.rank-tile')].some(
          (t) => Number(t.dataset.samples) > 0,
        ) || document.querySelector<HTMLElement>('#ranks-status')?.dataset.state !== 'running',
      undefined,
      { timeout: 120_000 },
    );
    await page.waitForFunction(
      () => document.querySelector<HTMLElement>('#ranks-status')?.dataset.state !== 'running',
      undefined,
      { timeout: 180_000 },
    );
    expect(
      await page.locator('#ranks-status').getAttribute('data-state'),
      (await page.locator('#ranks-status').textContent()) ?? '',
    ).toBe('done');
    const tiles = await page.$$eval('.rank-tile', (els) =>
      els.map((e) => ({
        rank: Number((e as HTMLElement).dataset.rank),
        indices: ((e as HTMLElement).dataset.indices ?? '').split(',').filter(Boolean).map(Number),
        share: Number((e as HTMLElement).dataset.share),
        bytes: Number((e as HTMLElement).dataset.bytes),
        total: Number((e as HTMLElement).dataset.totalBytes),
        fill: (e.querySelector('.rank-fill') as HTMLElement).style.width,
      })),
    );
    await page.screenshot({ path: join(ARTIFACTS, 'demo-ranks.png'), fullPage: true });
    expect(tiles.map((t) => t.rank)).toEqual([0, 1, 2, 3]);
    // every index of the epoch exactly once across the ranks, a quarter each
    const all = tiles.flatMap((t) => t.indices).sort((a, b) => a - b);
    expect(all).toEqual(Array.from({ length: SAMPLES }, (_, i) => i));
    for (const t of tiles) {
      expect(t.indices.length).toBe(SAMPLES / 4);
      expect(t.share).toBe(SAMPLES / 4);
      expect(t.fill).toBe('100%');
    }
    // bytes: the shards' total from the server (HEAD), each rank's from its own source's stats
    const total = tiles[0]?.total ?? 0;
    expect(total).toBeGreaterThan(SAMPLES * 1024);
    const shares = tiles.map((t) => t.bytes / total);
    console.log('[e2e ranks] byte shares per rank', shares.map((s) => s.toFixed(3)).join(' '));
    // The manifest gives each shard's sha256, so a rank reads each shard it touches once, whole,
    // and checks it (since issue 45; before, the index streams were fetched too but not counted):
    // with 3 shards of 200 samples and spans of 150, a rank fetches 1 or 2 whole shards, and no
    // shard is fetched by more than the 2 ranks whose spans meet in it.
    const SHARDS = SAMPLES / 200;
    for (const s of shares) {
      const whole = Math.round(s * SHARDS);
      expect(whole).toBeGreaterThanOrEqual(1);
      expect(whole).toBeLessThanOrEqual(2);
      expect(Math.abs(s * SHARDS - whole)).toBeLessThan(0.02);
    }
    expect(shares.reduce((a, b) => a + b, 0)).toBeLessThanOrEqual(2 + 0.02);
    // the panel fits a phone: nothing to scroll sideways, once the page has laid itself out
    // again (the charts follow a resize on the next frame)
    await page.setViewportSize({ width: 390, height: 844 });
    await expect
      .poll(
        () =>
          page.evaluate(
            () => document.documentElement.scrollWidth - document.documentElement.clientWidth,
          ),
        { timeout: 5_000 },
      )
      .toBeLessThanOrEqual(1);
    expect(errors).toEqual([]);
  });
});
