// The stress harness's plain page (docs/browser-support.md, "Stress harness"): the workspace config (source
// condition, ES workers) with the demo's data server, so it reads the demo's data set.
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { mergeConfig } from 'vite';
import { demoData } from '../../../demo/vite.config.ts';
import base from '../../../vite.config.ts';

const here = dirname(fileURLToPath(import.meta.url));

export default mergeConfig(base, {
  root: here,
  plugins: [demoData()],
  preview: { host: '127.0.0.1' },
  build: { outDir: resolve(here, '..', '..', '..', '.artifacts', 'stress', 'plain') },
});
