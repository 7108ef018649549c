// Issue 13, 2b: a webpack 5 app (no loaders, no plugins) that installs both
// tarballs with npm builds in production mode and trains the same TF.js model:
// webpack bundles the app's loader worker and the package's own OPFS worker
// from their `new Worker(new URL(..., import.meta.url))`.
import { preview } from 'vite';
import { beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '../setup/freePort.js';
import { expectTrained, installApp, openPage, run, SHARED_PIPELINE } from './consumerApp.js';

describe('a webpack 5 app installed from the tarballs', () => {
  let dir: string;

  beforeAll(async () => {
    dir = await installApp('webpack-tfjs', SHARED_PIPELINE);
  });

  it('builds and trains with disk hits on the second epoch', async () => {
    const out = await run(dir, 'node_modules/.bin/webpack', ['--mode', 'production']);
    expect(out).toMatch(/compiled successfully/);
    expect(out).not.toMatch(/WARNING|ERROR/);
    // A static file server for the app folder (index.html + dist/): Vite's preview, nothing of Vite's build.
    const port = await freePort();
    const server = await preview({
      configFile: false,
      root: dir,
      logLevel: 'error', // outDir is the app's root: fine for serving, Vite would warn
      build: { outDir: dir },
      preview: { host: '127.0.0.1', port, strictPort: true, open: false },
    });
    try {
      expectTrained(await openPage(`http://127.0.0.1:${port}/`));
    } finally {
      await server.close();
    }
  });
});
