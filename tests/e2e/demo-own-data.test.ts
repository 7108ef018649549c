// The demo's "your own data" source end to end: a real folder upload (Playwright's
// setInputFiles on the webkitdirectory input) of PNGs and a labels.csv written here;
// the page packs it into OPFS shards with a progress bar reaching 100 %, shows
// thumbnails with their labels, and trains an epoch from them. The shards it wrote
// are then copied out of OPFS and read by Python's tarfile and GNU tar, byte for byte.
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { encode } from 'fast-png';
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

const N = 24;
let demo: RunningDemo;
let browser: Browser;
let page: Page;
let folder: string;
const consoleErrors: string[] = [];

/** A 32 x 32 grey PNG: bright for class "lesion", dark for "normal", with a seeded texture. */
function image(i: number): Uint8Array {
  const data = new Uint8Array(32 * 32);
  for (let k = 0; k < data.length; k++) data[k] = (i % 2 ? 160 : 40) + ((k * 7 + i * 13) % 50);
  return encode({ width: 32, height: 32, data, depth: 8, channels: 1 });
}

describe('demo: your own data (a folder of images + labels.csv)', () => {
  beforeAll(async () => {
    const root = mkdtempSync(join(tmpdir(), 'medfusion-own-'));
    folder = join(root, 'my-scans');
    mkdirSync(join(folder, 'images'), { recursive: true });
    const rows = ['image,age,label'];
    for (let i = 0; i < N; i++) {
      writeFileSync(join(folder, 'images', `scan${String(i).padStart(2, '0')}.png`), image(i));
      rows.push(
        `images/scan${String(i).padStart(2, '0')}.png,${30 + i},${i % 2 ? 'lesion' : 'normal'}`,
      );
    }
    writeFileSync(join(folder, 'labels.csv'), `${rows.join('\n')}\n`);
    demo = await startDemo(generateSmallDataset(32));
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
    if (folder) rmSync(join(folder, '..'), { recursive: true, force: true });
  });

  it('packs the uploaded folder with a progress bar to 100 %, shows labelled thumbnails, trains an epoch', async () => {
    await page.goto(
      `${demo.url}?strategy=both&backend=cpu&epochs=1&batchSize=8&workers=0&latency=0`,
    );
    await waitReady(page);
    await page.setInputFiles('[data-testid="own-folder"]', folder);
    await page.waitForFunction(
      () => {
        const s = document.querySelector<HTMLElement>('[data-testid="own-status"]')?.dataset.state;
        return s === 'packed' || s === 'error';
      },
      undefined,
      { timeout: 60_000 },
    );
    const status = page.locator('[data-testid="own-status"]');
    expect(await status.getAttribute('data-state'), (await status.textContent()) ?? '').toBe(
      'packed',
    );
    expect(await status.textContent()).toMatch(/Packed 24 samples into 1 shard /);
    expect(await page.locator('[data-testid="own-progress"]').getAttribute('data-percent')).toBe(
      '100',
    );
    const thumbs = page.locator('[data-testid="own-grid"] figure');
    expect(await thumbs.count()).toBe(12);
    expect(
      await thumbs.evaluateAll((fs) => fs.map((f) => (f as HTMLElement).dataset.label)),
    ).toEqual(Array.from({ length: 12 }, (_, i) => (i % 2 ? 'lesion' : 'normal')));
    // Every thumbnail decoded (an <img> of the packed bytes).
    expect(
      await page
        .locator('[data-testid="own-grid"] img')
        .evaluateAll((imgs) => imgs.every((i) => (i as HTMLImageElement).naturalWidth === 32)),
    ).toBe(true);

    await page.locator('#own-data').screenshot({ path: join(ARTIFACTS, 'demo-own-data.png') });
    // The source is selected and opened: the header counts the packed samples.
    expect(await page.locator('select[name="source"]').inputValue()).toBe('own');
    await page.waitForFunction(() =>
      /^24 samples, your own data/.test(document.querySelector('#dataset')?.textContent ?? ''),
    );
    await page.click('#start');
    await waitRunEnd(page, 200_000);
    const run = page.locator('#status');
    expect(await run.getAttribute('data-state'), (await run.textContent()) ?? '').toBe('done');
    expect(await run.getAttribute('data-steps')).toBe(String(N / 8));
    expect(Number(await run.getAttribute('data-last-loss'))).toBeGreaterThan(0);
    expect(consoleErrors).toEqual([]);
  });

  it('its shards are read by Python tarfile and GNU tar: the members are the uploaded files', async () => {
    const files = await page.evaluate(async () => {
      const root = await navigator.storage.getDirectory();
      const dir = await root.getDirectoryHandle('medfusion-demo-own-data');
      const out: Record<string, string> = {};
      for await (const [name, h] of (
        dir as unknown as { entries(): AsyncIterable<[string, FileSystemFileHandle]> }
      ).entries()) {
        const bytes = new Uint8Array(await (await h.getFile()).arrayBuffer());
        let bin = '';
        for (const b of bytes) bin += String.fromCharCode(b);
        out[name] = btoa(bin);
      }
      return out;
    });
    const out = mkdtempSync(join(tmpdir(), 'medfusion-own-shards-'));
    try {
      for (const [name, b64] of Object.entries(files))
        writeFileSync(join(out, name), Buffer.from(b64, 'base64'));
      const manifest = JSON.parse(readFileSync(join(out, 'manifest.json'), 'utf8'));
      expect(manifest.shards.map((s: { url: string }) => s.url)).toEqual(['data-000000.tar']);
      const tar = join(out, 'data-000000.tar');
      const listed = execFileSync('tar', ['-tf', tar], { encoding: 'utf8' }).trim().split('\n');
      expect(listed.length).toBe(3 * N);
      const py = execFileSync(
        'python3',
        [
          '-c',
          `import tarfile, hashlib, json, sys
with tarfile.open(sys.argv[1]) as t:
    print(json.dumps({m.name: [m.offset_data, m.size, hashlib.sha256(t.extractfile(m).read()).hexdigest()] for m in t.getmembers()}))`,
          tar,
        ],
        { encoding: 'utf8' },
      );
      const members = JSON.parse(py) as Record<string, [number, number, string]>;
      const sha = (b: Uint8Array) => createHash('sha256').update(b).digest('hex');
      // The sidecar index gives each member's data offset and size as tarfile finds them.
      const index = JSON.parse(readFileSync(`${tar}.idx.json`, 'utf8')) as {
        entries: [string, number, number][];
        sha256: string;
      };
      expect(index.entries.map(([n, o, z]) => [n, o, z])).toEqual(
        Object.entries(members).map(([n, [o, z]]) => [n, o, z]),
      );
      expect(index.sha256).toBe(sha(readFileSync(tar)));
      expect(manifest.shards[0].sha256).toBe(index.sha256);
      for (let i = 0; i < N; i++) {
        const name = `scan${String(i).padStart(2, '0')}`;
        expect(members[`images/${name}.png`]?.[2]).toBe(
          sha(readFileSync(join(folder, 'images', `${name}.png`))),
        );
        expect(members[`images/${name}.cls`]?.[2]).toBe(sha(Buffer.from(i % 2 ? '0' : '1')));
      }
    } finally {
      rmSync(out, { recursive: true, force: true });
    }
  });
});
