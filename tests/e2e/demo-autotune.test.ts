// The demo's default run (issue 15): loads in flight and prefetch depth are 'auto', and the
// page shows the live bottleneck — the stage `diagnose` names, the number behind it, the one
// change to try — beside the data-stall share. The figures (stall per epoch, the knobs autotune
// chose) go to .artifacts/demo-autotune-figures.json for the closing note.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { waitReady, waitRunEnd } from './demoPage.js';
import {
  ARTIFACTS,
  generateSmallDataset,
  launchChromium,
  type RunningDemo,
  startDemo,
} from './demoServer.js';

// 600 keeps the test short; MEDFUSION_E2E_SAMPLES=10000 runs the demo's whole data set (its
// default, samples 0 = all), where the cold epoch's ramp is a small part of the epoch
const SAMPLES = Number(process.env.MEDFUSION_E2E_SAMPLES ?? 600);
/** How long the default run (3 epochs on the cpu backend) may take: 240 s, or 40 ms a sample-epoch. */
const RUN_TIMEOUT_MS = Math.max(240_000, SAMPLES * 3 * 40);
let demo: RunningDemo;
let browser: Browser;
let page: Page;
const consoleErrors: string[] = [];
/** The worker's `[demo] epoch N: {…}` log line: what the figures read from it. */
interface EpochLine {
  epochStall: number;
  epochMs: number;
  firstWaitMs: number;
  stepWaits: number[];
  loadsInFlight: number;
}
/** Data-stall share of each completed epoch, from the worker's `[demo] epoch N: {…}` log line. */
const epochStalls: number[] = [];
/** Each completed epoch's line. */
const epochLines: EpochLine[] = [];
const figures: Record<string, number | string> = {};

const STAGES = [
  'none',
  'consumer',
  'source-latency',
  'decode-cpu',
  'disk',
  'memory-budget',
  'cache-size',
];

/** Wait for the run's end and check it completed. */
async function waitRunDone(p: Page): Promise<void> {
  await waitRunEnd(p, RUN_TIMEOUT_MS);
  expect(
    await p.locator('#status').getAttribute('data-state'),
    (await p.locator('#status').textContent()) ?? '',
  ).toBe('done');
}

const attr = (p: Page, selector: string, name: string) => p.locator(selector).getAttribute(name);

describe("demo: 'auto' by default, the bottleneck shown live", () => {
  beforeAll(async () => {
    demo = await startDemo(generateSmallDataset(SAMPLES));
    browser = await launchChromium();
    page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
    page.on('console', (msg) => {
      if (msg.type() === 'error') consoleErrors.push(msg.text());
      const m = /^\[demo\] epoch (\d+): (\{.*\})$/.exec(msg.text());
      if (m) {
        const line = JSON.parse(m[2] as string) as EpochLine;
        epochStalls[Number(m[1]) - 1] = line.epochStall;
        epochLines[Number(m[1]) - 1] = line;
      }
    });
    page.on('pageerror', (err) => consoleErrors.push(`uncaught ${err.message}`));
  });

  afterAll(async () => {
    await browser?.close();
    await demo?.stop();
    writeFileSync(
      join(ARTIFACTS, 'demo-autotune-figures.json'),
      `${JSON.stringify(figures, null, 2)}\n`,
    );
    console.log('[e2e autotune figures]', JSON.stringify(figures));
  });

  it(
    "the default run tunes loads in flight and prefetch ('auto') and names the bottleneck while training",
    async () => {
      await page.goto(`${demo.url}?backend=cpu`); // every pipeline setting at its default
      await waitReady(page);
      expect(await page.locator('input[name="prefetchSize"]').inputValue()).toBe('auto');
      expect(await page.locator('input[name="loadsInFlight"]').inputValue()).toBe('auto');
      await page.click('#start');
      // live: the line appears while the run goes on, with the stage and its number
      await page.waitForFunction(
        () => {
          const step = Number(
            document.querySelector<HTMLElement>('[data-stat="step"]')?.dataset.value,
          );
          const stage = document.querySelector<HTMLElement>('#bottleneck')?.dataset.stage;
          return step >= 5 && stage !== undefined && stage !== 'none';
        },
        undefined,
        { timeout: 120_000 },
      );
      expect(await attr(page, '#status', 'data-state')).toBe('running');
      const live = (await page.locator('#bottleneck').textContent()) ?? '';
      figures.liveLine = live;
      expect(live).toMatch(/^Bottleneck: .+ — .*data stall \d+(\.\d)? %/);
      expect(live).toMatch(/autotune: \d+ loads in flight, prefetch \d+/);
      expect(await attr(page, '#bottleneck', 'data-auto')).toBe('true');
      // the decode pool's workers report their load phases: a stage about loads shows the
      // split between waiting for bytes and decoding
      if (/^Bottleneck: (source latency|decoding)/.test(live)) {
        expect(live).toMatch(/per load \d+\.\d ms waiting for bytes, \d+\.\d ms decoding/);
      }
      await page.screenshot({ path: join(ARTIFACTS, 'demo-autotune-live.png') });
      await waitRunDone(page);

      const stage = (await attr(page, '#bottleneck', 'data-stage')) ?? '';
      expect(STAGES).toContain(stage);
      const numWorkers = Number(await attr(page, '#bottleneck', 'data-num-workers'));
      const prefetchSize = Number(await attr(page, '#bottleneck', 'data-prefetch-size'));
      expect(numWorkers).toBeGreaterThanOrEqual(1);
      expect(prefetchSize).toBeGreaterThanOrEqual(1);
      // the line's stall is the step's own, the one the Data stall tile shows
      const tile = Number(await attr(page, '[data-stat="stall"]', 'data-value'));
      const lineStall = Number(await attr(page, '#bottleneck', 'data-stall'));
      expect(Math.abs(lineStall - tile)).toBeLessThan(0.02);
      expect(epochStalls.length).toBe(3); // the default: 3 epochs
      Object.assign(figures, {
        samples: SAMPLES,
        stage,
        numWorkers,
        prefetchSize,
        epochStalls: epochStalls.map((x) => x.toFixed(4)).join(' '),
        // the cold epoch's time, its first batch's wait, its wait per step and the loads in
        // flight autotune ended at: whether the stall is the ramp or the whole epoch
        coldEpochMs: Math.round(epochLines[0]?.epochMs ?? Number.NaN),
        coldFirstWaitMs: Math.round(epochLines[0]?.firstWaitMs ?? Number.NaN),
        coldStepWaits: (epochLines[0]?.stepWaits ?? []).join(' '),
        coldLoadsInFlight: epochLines[0]?.loadsInFlight ?? Number.NaN,
        endLine: (await page.locator('#bottleneck').textContent()) ?? '',
      });
      for (const x of epochStalls) {
        expect(x).toBeGreaterThanOrEqual(0);
        expect(x).toBeLessThanOrEqual(1);
      }
    },
    RUN_TIMEOUT_MS + 60_000,
  );

  it('explicit numbers mean exactly what they say: no autotune, the given knobs shown', async () => {
    await page.goto(
      `${demo.url}?backend=cpu&prefetchSize=10&loadsInFlight=2&epochs=1&samples=64&strategy=both`,
    );
    await waitReady(page);
    expect(await page.locator('input[name="prefetchSize"]').inputValue()).toBe('10');
    expect(await page.locator('input[name="loadsInFlight"]').inputValue()).toBe('2');
    await page.click('#start');
    await waitRunDone(page);
    const line = (await page.locator('#bottleneck').textContent()) ?? '';
    expect(line).toMatch(/ 2 loads in flight, prefetch 10/);
    expect(line).not.toMatch(/autotune/);
    expect(await attr(page, '#bottleneck', 'data-auto')).toBe('false');
  });

  it('refuses anything but auto or a whole number in range, saying so', async () => {
    const input = page.locator('input[name="loadsInFlight"]');
    await input.fill('many');
    await input.dispatchEvent('change');
    expect(await page.locator('#loadsInFlight-error').textContent()).toMatch(
      /auto or a whole number from 1 to 512/,
    );
    expect(await page.locator('#start').isDisabled()).toBe(true);
    await input.fill('auto');
    await input.dispatchEvent('change');
    expect(await page.locator('#start').isDisabled()).toBe(false);
    expect(page.url()).not.toMatch(/loadsInFlight=/); // 'auto' is the default
  });

  it('logged no console errors', () => {
    expect(consoleErrors).toEqual([]);
  });
});
