// The demo end to end in Firefox (Debian's ESR over WebDriver BiDi): started with the README's
// command, it prints its URL without bundler warnings before it; the page trains with
// 'both + disk', then, with the demo's server stopped (nothing left to reach), reloads from its
// service worker and trains again with every sample from disk (the page's own counters:
// network 0). Any console error fails the test.
import type { BrowserContext, Page } from 'playwright';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { otherEnginesRequested } from '../setup/engines.js';
import { waitReady, waitRunEnd } from './demoPage.js';
import {
  generateSmallDataset,
  launchPersistentFirefox,
  type RunningDemo,
  startDemo,
} from './demoServer.js';

const SAMPLES = 200;
let demo: RunningDemo;
let context: BrowserContext;
let page: Page;
const consoleErrors: string[] = [];

const num = async (p: Page, selector: string, attr: string) =>
  Number(await p.locator(selector).getAttribute(attr));

async function train(p: Page): Promise<void> {
  await p.click('#start');
  await waitRunEnd(p, 200_000);
  const status = (await p.locator('#status').textContent()) ?? '';
  expect(await p.locator('#status').getAttribute('data-state'), status).toBe('done');
}

const requested = otherEnginesRequested().includes('firefox');

describe.skipIf(!requested)(
  `demo in Firefox (npm run demo, built and served with the data)${requested ? '' : ' [firefox not in MEDFUSION_ENGINES]'}`,
  () => {
    beforeAll(async () => {
      demo = await startDemo(generateSmallDataset(SAMPLES));
      context = await launchPersistentFirefox('e2e-profile-firefox');
      page = context.pages()[0] ?? (await context.newPage());
      page.on('console', (msg) => {
        if (msg.type() === 'error') consoleErrors.push(`${page.url()}: ${msg.text()}`);
      });
      page.on('pageerror', (err) =>
        consoleErrors.push(`${page.url()}: uncaught ${err.message}\n${err.stack ?? ''}`),
      );
    });

    afterAll(async () => {
      await context?.close();
      await demo?.stop();
    });

    it('npm run demo prints its URL without bundler warnings before it', () => {
      expect(demo.printed).not.toMatch(/externalized for browser compatibility|PLUGIN_TIMINGS/);
      expect(demo.printed.split('\n').filter((l) => /warn/i.test(l))).toEqual([]);
    });

    it('trains with both + disk', async () => {
      await page.goto(demo.url);
      await waitReady(page);
      // 'both + disk' is the default strategy, as in demo.test.ts
      expect(await page.locator('#strategy').inputValue()).toBe('both-disk');
      await train(page);
      expect(await num(page, '#origin', 'data-delivered')).toBeGreaterThanOrEqual(SAMPLES);
    });

    it('reloads with the server gone and trains again, every sample from disk (network 0)', async () => {
      await demo.stop();
      await page.reload();
      await waitReady(page);
      expect(await page.locator('#dataset').textContent()).toMatch(/manifest from offline copy/);
      await train(page);
      const delivered = await num(page, '#origin', 'data-delivered');
      expect(delivered).toBeGreaterThanOrEqual(SAMPLES);
      expect(await num(page, '#origin', 'data-network')).toBe(0);
      expect(await num(page, '#origin', 'data-network-errors')).toBe(0);
      expect(await num(page, '#origin', 'data-disk')).toBeGreaterThanOrEqual(SAMPLES);
    });

    it('logged no console errors', () => {
      expect(consoleErrors).toEqual([]);
    });
  },
);
