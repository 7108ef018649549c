// Issue 13, 2a: a Vite + TypeScript app that installs both tarballs with npm
// typechecks (strict, skipLibCheck: false), builds, and under `vite preview`
// and under `vite` dev (where dependency pre-bundling moves the package's
// worker URLs) trains a TF.js model through a worker loader, an OPFS cacheDir,
// a DataLoader and toTfDataset.
import { beforeAll, describe, expect, it } from 'vitest';
import {
  expectTrained,
  installApp,
  openWithVite,
  run,
  SHARED_PIPELINE,
  typeErrorsOfOurs,
} from './consumerApp.js';

describe('a Vite + TypeScript app installed from the tarballs', () => {
  let dir: string;

  beforeAll(async () => {
    dir = await installApp('vite-tfjs', SHARED_PIPELINE);
  });

  it('typechecks with strict and skipLibCheck: false', async () => {
    expect(await typeErrorsOfOurs(dir)).toEqual([]);
  });

  it('builds, and under vite preview trains with disk hits on the second epoch', async () => {
    const out = await run(dir, 'node_modules/.bin/vite', ['build', '--logLevel', 'warn']);
    expect(out).not.toMatch(/error/i);
    expectTrained(await openWithVite(dir, 'preview'));
  });

  it('trains under vite dev, through pre-bundled dependencies', async () => {
    expectTrained(await openWithVite(dir, 'dev'));
  });
});
