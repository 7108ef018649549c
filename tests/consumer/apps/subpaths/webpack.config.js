// Plain webpack 5, as tests/consumer/apps/webpack-tfjs: the same page, into
// dist-webpack/. The one setting @medfusion/web/dicom asks of webpack (docs/dicom.md):
// the Emscripten codecs name Node's fs and path in a branch browsers never take.
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));

export default {
  entry: './src/main.js',
  output: { path: resolve(here, 'dist-webpack'), filename: 'main.js', clean: true },
  performance: { hints: false },
  resolve: { fallback: { fs: false, path: false } },
};
