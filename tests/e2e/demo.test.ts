// The demo end to end: build it, serve it on 127.0.0.1, drive Chromium with
// Playwright. Train with 'both + disk', reload with the network off and train
// again from disk, run the comparison at a tiny scale, check the phone layout,
// train from the remote tar shards (range requests through the data server).
// Any console error anywhere fails the test. Screenshots go to .artifacts/.
import { join } from 'node:path';
import type { Browser, BrowserContext, Page } from 'playwright';
import type { PreviewServer } from 'vite';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ARTIFACTS, buildAndPreview, generateSmallDataset, launchChromium } from './demoServer.js';

const SAMPLES = 600;
let server: PreviewServer;
let baseUrl: string;
let browser: Browser;
let context: BrowserContext;
let page: Page;
const consoleErrors: string[] = [];

function watch(p: Page): void {
  p.on('console', (msg) => {
    if (msg.type() === 'error') {
      consoleErrors.push(`${p.url()}: ${msg.text()} (${msg.location().url || 'no location'})`);
    }
  });
  p.on('pageerror', (err) =>
    consoleErrors.push(`${p.url()}: uncaught ${err.message}\n${err.stack ?? ''}`),
  );
}

async function waitReady(p: Page): Promise<void> {
  await p.waitForFunction(
    () => {
      const s = document.querySelector<HTMLElement>('#status');
      return s?.dataset.ready === 'true' || s?.dataset.state === 'error';
    },
    undefined,
    { timeout: 60_000 },
  );
  expect(await p.locator('#status').getAttribute('data-state')).not.toBe('error');
}

async function train(p: Page): Promise<void> {
  await p.click('#start');
  await p.waitForFunction(
    () => {
      const s = document.querySelector<HTMLElement>('#status')?.dataset.state;
      return s === 'done' || s === 'error' || s === 'stopped';
    },
    undefined,
    { timeout: 200_000 },
  );
  const state = await p.locator('#status').getAttribute('data-state');
  expect(state, (await p.locator('#status').textContent()) ?? '').toBe('done');
}

const num = async (p: Page, selector: string, attr: string) =>
  Number(await p.locator(selector).getAttribute(attr));
const statValue = (p: Page, name: string) => num(p, `[data-stat="${name}"]`, 'data-value');

describe('demo (built, served by vite preview, in Chromium)', () => {
  beforeAll(async () => {
    const data = generateSmallDataset(SAMPLES);
    const served = await buildAndPreview(data);
    server = served.server;
    baseUrl = served.url;
    browser = await launchChromium();
    context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
    page = await context.newPage();
    watch(page);
  });

  afterAll(async () => {
    await browser?.close();
    await new Promise<void>((res) => server?.httpServer.close(() => res()));
  });

  it('serves the data set as real files with the requested latency, nothing outside it', async () => {
    const manifest = await fetch(`${baseUrl}data/manifest.csv`);
    expect(manifest.status).toBe(200);
    expect(manifest.headers.get('x-added-latency-ms')).toBe('10'); // the default
    expect(manifest.headers.get('cache-control')).toBe('no-store');
    const lines = (await manifest.text()).trim().split('\n');
    expect(lines[0]).toBe('id,image,age,marker_a,marker_b,bmi,label');
    expect(lines.length).toBe(SAMPLES + 1);
    const png = await fetch(`${baseUrl}data/images/000.png?latency=25`);
    expect(png.headers.get('content-type')).toBe('image/png');
    expect(png.headers.get('x-added-latency-ms')).toBe('25');
    expect([...new Uint8Array(await png.arrayBuffer()).subarray(1, 4)]).toEqual([0x50, 0x4e, 0x47]);
    const cookie = await fetch(`${baseUrl}data/images/001.png`, {
      headers: { cookie: 'mf-latency=3' },
    });
    expect(cookie.headers.get('x-added-latency-ms')).toBe('3');
    await cookie.arrayBuffer();
    expect((await fetch(`${baseUrl}data/%2e%2e%2f%2e%2e%2fpackage.json`)).status).toBe(404);
    expect((await fetch(`${baseUrl}data/images/nope.png`)).status).toBe(404);
  });

  it('trains with both + disk: the loss falls and the pipeline numbers are shown', async () => {
    await page.goto(
      `${baseUrl}?strategy=both-disk&backend=cpu&epochs=2&batchSize=32&cacheSize=100&workers=2&latency=10`,
    );
    await waitReady(page);
    expect(await page.locator('#backend').textContent()).toBe('cpu');
    expect(await page.locator('#dataset').getAttribute('data-length')).toBe(String(SAMPLES));
    await train(page);

    const steps = await num(page, '#status', 'data-steps');
    expect(steps).toBe(2 * Math.ceil(SAMPLES / 32));
    const first = await num(page, '#status', 'data-first-loss');
    const last = await num(page, '#status', 'data-last-loss');
    expect(last).toBeLessThan(first);

    const throughput = await statValue(page, 'throughput');
    expect(throughput).toBeGreaterThan(0);
    expect(throughput).toBeLessThan(1e6);
    const stall = await statValue(page, 'stall');
    expect(stall).toBeGreaterThanOrEqual(0);
    expect(stall).toBeLessThanOrEqual(1);
    const memoryHit = await statValue(page, 'memoryHitRate');
    expect(memoryHit).toBeGreaterThanOrEqual(0);
    expect(memoryHit).toBeLessThanOrEqual(1);
    const diskHit = await statValue(page, 'diskHitRate');
    expect(diskHit).toBeGreaterThan(0); // epoch 2 reads what epoch 1 wrote (cache 100 < 600)
    expect(await page.locator('[data-stat="stall"]').textContent()).toMatch(/%$/);

    // Every sample went over the network once at most, then came from memory or disk.
    const network = await num(page, '#origin', 'data-network');
    const delivered = await num(page, '#origin', 'data-delivered');
    expect(delivered).toBe(2 * SAMPLES);
    expect(network).toBeGreaterThanOrEqual(SAMPLES);
    expect(network).toBeLessThan(delivered);
    expect(await statValue(page, 'disk')).toBeGreaterThan(0);
    await page.screenshot({ path: join(ARTIFACTS, 'demo-trained.png'), fullPage: true });
  });

  it('reloads with the network off and trains again, every sample from disk', async () => {
    await context.setOffline(true);
    try {
      await page.reload();
      await waitReady(page);
      expect(await page.locator('#online').textContent()).toBe('offline');
      expect(await page.locator('#dataset').textContent()).toMatch(/manifest from offline copy/);
      await train(page);
      const delivered = await num(page, '#origin', 'data-delivered');
      expect(delivered).toBe(2 * SAMPLES);
      expect(await num(page, '#origin', 'data-network')).toBe(0);
      expect(await num(page, '#origin', 'data-network-errors')).toBe(0);
      const disk = await num(page, '#origin', 'data-disk');
      const memory = await num(page, '#origin', 'data-memory');
      expect(disk).toBeGreaterThanOrEqual(SAMPLES);
      expect(disk + memory).toBe(delivered);
      expect(await page.locator('#origin').textContent()).toMatch(/network 0 · disk/);
      await page.screenshot({ path: join(ARTIFACTS, 'demo-offline.png'), fullPage: true });
    } finally {
      await context.setOffline(false);
    }
  });

  it('compares the strategies at a tiny scale: every row has numbers', async () => {
    await page.fill('input[name="compareSamples"]', '100');
    await page.locator('input[name="compareSamples"]').dispatchEvent('change');
    await page.click('#compare');
    await page.waitForFunction(
      () => {
        const s = document.querySelector<HTMLElement>('#compare-status')?.dataset.state;
        return s === 'done' || s === 'error';
      },
      undefined,
      { timeout: 200_000 },
    );
    expect(await page.locator('#compare-status').getAttribute('data-state')).toBe('done');
    const rows = await page.locator('#compare-table tbody tr').all();
    expect(rows.length).toBe(7); // none, lru, prefetch, both, prefetch + plan, both + plan, best
    for (const row of rows) {
      for (const attr of ['data-wall-ms', 'data-speedup', 'data-hit-rate']) {
        const v = Number(await row.getAttribute(attr));
        expect(Number.isFinite(v), `${attr} of ${await row.textContent()}`).toBe(true);
        expect(v).toBeGreaterThanOrEqual(0);
      }
      expect(await row.textContent()).toMatch(/\d+\.\d\d s.*\d+\.\d\dx/);
    }
    const speedups = await page
      .locator('#compare-table tbody tr')
      .evaluateAll((trs) => trs.map((tr) => Number((tr as HTMLElement).dataset.speedup)));
    expect(speedups[0]).toBe(1); // none is the baseline
    expect(Math.max(...speedups)).toBeGreaterThan(1.5);
    await page.locator('#compare-table').scrollIntoViewIfNeeded();
    await page.screenshot({ path: join(ARTIFACTS, 'demo-compare.png'), fullPage: true });
  });

  it('works on a phone-sized viewport: labelled controls, keyboard reachable, no overflow', async () => {
    const phone = await context.newPage();
    watch(phone);
    await phone.setViewportSize({ width: 390, height: 844 });
    await phone.goto(`${baseUrl}?backend=cpu`);
    await waitReady(phone);
    const unlabelled = await phone
      .locator('input, select')
      .evaluateAll((els) =>
        els
          .filter((el) => ((el as HTMLInputElement).labels?.length ?? 0) === 0)
          .map((el) => el.outerHTML),
      );
    expect(unlabelled).toEqual([]);
    const overflow = await phone.evaluate(
      () => document.documentElement.scrollWidth - document.documentElement.clientWidth,
    );
    expect(overflow).toBeLessThanOrEqual(1);
    const reached = new Set<string>();
    for (let i = 0; i < 30; i++) {
      await phone.keyboard.press('Tab');
      reached.add(
        await phone.evaluate(
          () =>
            document.activeElement?.id ||
            (document.activeElement as HTMLInputElement | null)?.name ||
            '',
        ),
      );
    }
    for (const id of ['strategy', 'cacheSize', 'latency', 'start', 'reset', 'compare']) {
      expect(reached, `Tab reaches ${id}`).toContain(id);
    }
    await phone.screenshot({ path: join(ARTIFACTS, 'demo-phone.png'), fullPage: true });
    await phone.close();
  });

  it('trains from remote tar shards: merged range requests, fewer than samples', async () => {
    const shard = await fetch(`${baseUrl}data/shards/train-000000.tar?latency=0`, {
      headers: { range: 'bytes=512-1535' },
    });
    expect(shard.status).toBe(206);
    expect(shard.headers.get('content-range')).toMatch(/^bytes 512-1535\/\d+$/);
    expect(shard.headers.get('etag')).toMatch(/^"[^"]+"$/);
    expect((await shard.arrayBuffer()).byteLength).toBe(1024);

    await page.goto(
      `${baseUrl}?source=shards&strategy=both&backend=cpu&epochs=1&batchSize=32&cacheSize=100&workers=0&latency=10`,
    );
    await waitReady(page);
    expect(await page.locator('select[name="source"]').inputValue()).toBe('shards');
    expect(await page.locator('#dataset').getAttribute('data-length')).toBe(String(SAMPLES));
    await train(page);
    expect(await num(page, '#status', 'data-steps')).toBe(Math.ceil(SAMPLES / 32));
    const last = await num(page, '#status', 'data-last-loss');
    expect(Number.isFinite(last)).toBe(true);
    expect(await num(page, '#origin', 'data-delivered')).toBe(SAMPLES);
    const requests = await statValue(page, 'shards');
    expect(requests).toBeGreaterThan(0);
    expect(requests).toBeLessThan(SAMPLES);
    expect(await num(page, '[data-stat="shards"]', 'data-bytes')).toBeGreaterThan(0);
    await page.screenshot({ path: join(ARTIFACTS, 'demo-shards.png'), fullPage: true });
  });

  it('augmentation switch: a grid of one sample across epochs, and training with it on', async () => {
    await page.goto(
      `${baseUrl}?source=csv&strategy=both&backend=cpu&epochs=1&batchSize=32&samples=128&workers=0&latency=0&augment=on`,
    );
    await waitReady(page);
    expect(await page.locator('select[name="augment"]').inputValue()).toBe('on');
    const canvases = page.locator('#augment-grid canvas');
    await canvases.first().waitFor();
    expect(await canvases.count()).toBe(8);
    const hashes = await canvases.evaluateAll((cs) =>
      cs.map((c) => (c as HTMLElement).dataset.hash),
    );
    expect(new Set(hashes).size).toBeGreaterThan(1); // the epochs show different views
    await train(page);
    expect(await num(page, '#status', 'data-steps')).toBe(4);
    await page.screenshot({ path: join(ARTIFACTS, 'demo-augment.png'), fullPage: true });
    await page.selectOption('select[name="augment"]', 'off');
    await expect.poll(() => page.locator('#augment-figure').isHidden()).toBe(true);
  });

  it('logged no console errors', () => {
    expect(consoleErrors).toEqual([]);
  });
});
