// Issue 13, 2c: an app that does not install TF.js and imports @medfusion/web
// (a source, both stores, the app's loader worker) typechecks, builds and runs;
// nothing in it asks for @tensorflow/*.
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { CSV_IMAGES, installApp, openWithVite, run } from './consumerApp.js';

describe('an app with @medfusion/web and without TF.js, installed from the tarballs', () => {
  let dir: string;

  beforeAll(async () => {
    dir = await installApp('web-no-tfjs', CSV_IMAGES);
  });

  it('typechecks with strict and skipLibCheck: false, without a TF.js declaration', async () => {
    await run(dir, 'node_modules/.bin/tsc', ['--noEmit', '-p', '.', '--pretty', 'false']);
  });

  it('builds with no TF.js code and runs: CSV + PNG source, OPFS and IndexedDB stores, a loader worker', async () => {
    await run(dir, 'node_modules/.bin/vite', ['build', '--logLevel', 'warn']);
    const assets = join(dir, 'dist', 'assets');
    for (const file of await readdir(assets)) {
      if (file.endsWith('.js'))
        expect(await readFile(join(assets, file), 'utf8'), file).not.toMatch(/@tensorflow|tfjs/);
    }
    const report = await openWithVite(dir, 'preview');
    expect(report.error).toBeUndefined();
    expect(report.pageErrors).toEqual([]);
    expect(report.result).toEqual({
      rows: 5, // tests/web/fixtures/csv-images/manifest.csv
      classes: 2,
      pagePixels: expect.any(Number),
      workerPixels: expect.any(Number),
      workerLabel: expect.any(Number),
      opfs: [1, 2, 3],
      idb: [1, 2, 3],
    });
    expect(report.result?.workerPixels).toBe(report.result?.pagePixels);
    // the app's loader worker and the package's OPFS worker
    expect(new Set(report.workers).size).toBe(2);
  });
});
