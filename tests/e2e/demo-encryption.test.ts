// The demo's "encrypt the disk cache" switch and "forget this data set" button end to
// end (issue 40): train with the disk tier plain, then with the switch on (a passphrase
// through PBKDF2), and search the OPFS files' bytes for plaintext of the samples (the
// sample codec writes each field's name, "tabular", in the clear): found in the plain
// directory (the search works), absent from the encrypted one. Then "forget": the data
// set's entries go, the segment files are removed and the origin's storage shrinks.
import type { BrowserContext, Page } from 'playwright';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { waitReady, waitRunEnd } from './demoPage.js';
import {
  generateSmallDataset,
  launchPersistent,
  type RunningDemo,
  startDemo,
} from './demoServer.js';

const SAMPLES = 64;
let demo: RunningDemo;
let context: BrowserContext;
let page: Page;
const consoleErrors: string[] = [];

/** Segment files of the OPFS directory `dir`, and whether any file there holds `needle`. */
function scanOpfs(p: Page, dir: string, needle: string) {
  return p.evaluate(
    async ({ dir, needle }) => {
      const root = await navigator.storage.getDirectory();
      const handle = await root.getDirectoryHandle(dir);
      const want = new TextEncoder().encode(needle);
      const names: string[] = [];
      let segmentBytes = 0;
      let found = false;
      for await (const entry of (
        handle as unknown as { values(): AsyncIterable<FileSystemFileHandle> }
      ).values()) {
        if (entry.kind !== 'file') continue;
        names.push(entry.name);
        const bytes = new Uint8Array(await (await entry.getFile()).arrayBuffer());
        if (entry.name.startsWith('segment-')) segmentBytes += bytes.length;
        outer: for (let i = 0; !found && i + want.length <= bytes.length; i++) {
          for (let j = 0; j < want.length; j++) if (bytes[i + j] !== want[j]) continue outer;
          found = true;
        }
      }
      return {
        segments: names.filter((n) => n.startsWith('segment-')).length,
        segmentBytes,
        names,
        found,
      };
    },
    { dir, needle },
  );
}

async function train(p: Page): Promise<void> {
  await p.click('#start');
  await waitRunEnd(p, 200_000);
  expect(
    await p.locator('#status').getAttribute('data-state'),
    (await p.locator('#status').textContent()) ?? '',
  ).toBe('done');
}

describe('demo: encrypt the disk cache, forget this data set', () => {
  beforeAll(async () => {
    demo = await startDemo(generateSmallDataset(SAMPLES));
    context = await launchPersistent('e2e-encryption-profile');
    page = context.pages()[0] ?? (await context.newPage());
    page.on('console', (msg) => {
      if (msg.type() === 'error') consoleErrors.push(msg.text());
    });
    page.on('pageerror', (err) => consoleErrors.push(`uncaught ${err.message}`));
    await page.goto(
      `${demo.url}?strategy=both-disk&backend=cpu&epochs=1&batchSize=16&cacheSize=8&workers=0&latency=0`,
    );
    await waitReady(page);
  });

  afterAll(async () => {
    await context?.close();
    await demo?.stop();
  });

  it('plain: the samples lie in clear bytes on disk (the search finds them)', async () => {
    expect(await page.locator('#encryption-state').getAttribute('data-state')).toBe('off');
    await train(page);
    const plain = await scanOpfs(page, 'medfusion-demo', 'tabular');
    expect(plain.segments).toBeGreaterThan(0);
    expect(plain.found).toBe(true);
  });

  it('encrypted: a passphrase turns it on; no plaintext reaches the disk', async () => {
    await page.fill('#passphrase', 'correct horse battery staple');
    await page.check('#encrypt-disk');
    await page.waitForFunction(
      () =>
        ['on', 'error'].includes(
          document.querySelector<HTMLElement>('#encryption-state')?.dataset.state ?? '',
        ),
      undefined,
      { timeout: 60_000 },
    );
    expect(await page.locator('#encryption-state').getAttribute('data-state')).toBe('on');
    await train(page);
    expect(await page.locator('[data-stat="disk"]').getAttribute('data-value')).toBe(
      String(SAMPLES),
    );
    const sealed = await scanOpfs(page, 'medfusion-demo-encrypted', 'tabular');
    expect(sealed.names).toContain('encrypted.bin');
    // every sample is on disk, sealed
    expect(sealed.segmentBytes).toBeGreaterThan(SAMPLES * 1024);
    expect(sealed.found).toBe(false);
  });

  it('forget: the data set leaves the disk and the space is given back', async () => {
    const result = page.locator('#forget-result');
    await page.click('#forget');
    await page.waitForFunction(
      () => document.querySelector<HTMLElement>('#forget-result')?.dataset.state !== undefined,
      undefined,
      { timeout: 60_000 },
    );
    expect(await result.getAttribute('data-state'), (await result.textContent()) ?? '').toBe(
      'done',
    );
    const attr = async (name: string) => Number(await result.getAttribute(`data-${name}`));
    expect(await attr('entries')).toBe(SAMPLES);
    console.log('[e2e forget]', await result.textContent());
    // the segment files went; what stays is the directory's bookkeeping (head, marker, index)
    expect(await attr('bytes-before')).toBeGreaterThan(SAMPLES * 1024);
    expect(await attr('bytes-after')).toBeLessThan(4096);
    expect(await attr('segments-before')).toBeGreaterThan(0);
    expect(await attr('segments-after')).toBe(0);
    expect(await attr('usage-after')).toBeLessThan(await attr('usage-before'));
    expect(await result.textContent()).toMatch(/Forgot 64 samples \(encrypted store\)/);
    // no segment file left: no byte of the data set stays in the directory
    const after = await scanOpfs(page, 'medfusion-demo-encrypted', 'tabular');
    expect(after.segments).toBe(0);
    expect(after.segmentBytes).toBe(0);
    expect(consoleErrors).toEqual([]);
  });
});
