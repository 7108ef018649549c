// Plain webpack 5: workers come from `new Worker(new URL(..., import.meta.url))`,
// in the app and inside @medfusion/web (its OPFS worker).
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));

export default {
  entry: './src/index.js',
  output: { path: resolve(here, 'dist'), filename: 'main.js', clean: true },
  performance: { hints: false },
};
