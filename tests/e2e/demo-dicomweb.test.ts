// The demo's "DICOMweb (Orthanc)" source end to end: `npm run demo` starts a throwaway
// Orthanc (where installed; CI installs it like the dicom project's setup does), uploads
// the generated DICOM files and forwards DICOMweb under its own origin; the page trains
// from it through DicomWebSource and says where samples came from: the server in the
// first epoch, the disk tier after. Skipped where Orthanc cannot be installed.
import type { Browser, Page } from 'playwright';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureOrthanc } from '../../scripts/orthanc.mjs';
import { generateSmallDataset, launchChromium, type RunningDemo, startDemo } from './demoServer.js';

const SAMPLES = 64;
const hasOrthanc = !process.env.MEDFUSION_NO_ORTHANC && ensureOrthanc();
let demo: RunningDemo;
let browser: Browser;
let page: Page;
const consoleErrors: string[] = [];

describe.skipIf(!hasOrthanc)('demo: DICOMweb (Orthanc) source', () => {
  beforeAll(async () => {
    demo = await startDemo(generateSmallDataset(SAMPLES));
    browser = await launchChromium();
    page = await browser.newPage();
    page.on('console', (msg) => {
      if (msg.type() === 'error') consoleErrors.push(msg.text());
    });
    page.on('pageerror', (err) => consoleErrors.push(`uncaught ${err.message}`));
  });

  afterAll(async () => {
    await browser?.close();
    await demo?.stop();
  });

  it('the demo server runs Orthanc with every generated file, under its own origin', async () => {
    const status = await (await fetch(`${demo.url}orthanc/status.json`)).json();
    expect(status).toEqual({ available: true, instances: SAMPLES });
    const qido = await fetch(`${demo.url}orthanc/dicom-web/instances?limit=1000`);
    expect(qido.status).toBe(200);
    expect(((await qido.json()) as unknown[]).length).toBe(SAMPLES);
  });

  it('trains from DICOMweb: the server in epoch 1, the disk tier in epoch 2', async () => {
    await page.goto(
      `${demo.url}?source=dicomweb&strategy=both-disk&backend=cpu&epochs=2&batchSize=16&cacheSize=8&workers=0&latency=0`,
    );
    await page.waitForFunction(
      () => {
        const s = document.querySelector<HTMLElement>('#status');
        return s?.dataset.ready === 'true' || s?.dataset.state === 'error';
      },
      undefined,
      { timeout: 60_000 },
    );
    const option = page.locator('#source option[value="dicomweb"]');
    expect(await option.isDisabled()).toBe(false);
    expect(await page.locator('select[name="source"]').inputValue()).toBe('dicomweb');
    expect(await page.locator('#dataset').textContent()).toMatch(/64 samples, .*DICOMweb/);
    await page.click('#start');
    await page.waitForFunction(
      () =>
        ['done', 'error', 'stopped'].includes(
          document.querySelector<HTMLElement>('#status')?.dataset.state ?? '',
        ),
      undefined,
      { timeout: 60_000 },
    );
    const origin = page.locator('#origin');
    expect(
      await page.locator('#status').getAttribute('data-state'),
      (await page.locator('#status').textContent()) ?? '',
    ).toBe('done');
    const count = async (name: string) => Number(await origin.getAttribute(`data-${name}`));
    expect(await count('delivered')).toBe(2 * SAMPLES);
    // every sample fetched from Orthanc once; the second epoch read them from disk
    expect(await count('network')).toBe(SAMPLES);
    expect(await count('disk')).toBeGreaterThan(0);
    expect(await count('network-errors')).toBe(0);
    expect(await origin.textContent()).toMatch(/network 64 · disk \d+ · memory \d+/);
    expect(consoleErrors).toEqual([]);
  });
});

describe('demo without Orthanc', () => {
  it('shows the DICOMweb option disabled, with the reason', async () => {
    const off = await startDemo(generateSmallDataset(SAMPLES), { MEDFUSION_NO_ORTHANC: '1' });
    const chromium = await launchChromium();
    try {
      const status = await (await fetch(`${off.url}orthanc/status.json`)).json();
      expect(status).toEqual({ available: false, reason: 'turned off (MEDFUSION_NO_ORTHANC)' });
      expect((await fetch(`${off.url}orthanc/dicom-web/instances`)).status).toBe(503);
      const p = await chromium.newPage();
      await p.goto(`${off.url}?backend=cpu`);
      await p.waitForFunction(() => document.querySelector<HTMLElement>('#status')?.dataset.ready);
      const option = p.locator('#source option[value="dicomweb"]');
      expect(await option.isDisabled()).toBe(true);
      expect(await option.textContent()).toBe(
        'DICOMweb (Orthanc): off, turned off (MEDFUSION_NO_ORTHANC)',
      );
      expect(await option.getAttribute('title')).toBe('turned off (MEDFUSION_NO_ORTHANC)');
    } finally {
      await chromium.close();
      await off.stop();
    }
  });
});
