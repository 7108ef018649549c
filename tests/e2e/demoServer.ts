// Helpers for the demo e2e test: a small data set, the built demo served by
// `vite preview` on 127.0.0.1 (a free port), and Debian's Chromium.
import { execFileSync } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { type Browser, chromium } from 'playwright';
import { build, type PreviewServer, preview } from 'vite';
import { freePort } from '../setup/freePort.js';

/** Repository root. */
export const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
/** Where screenshots and the test's data go (git-ignored). */
export const ARTIFACTS = join(ROOT, '.artifacts');

/** Generate `count` samples (and their tar shards, 200 per shard) with the demo's own generator into `.artifacts/`. */
export function generateSmallDataset(count: number): string {
  const out = join(ARTIFACTS, `e2e-data-${count}`);
  mkdirSync(ARTIFACTS, { recursive: true });
  execFileSync(
    process.execPath,
    [
      join(ROOT, 'demo', 'scripts', 'generate-data.mjs'),
      '--count',
      String(count),
      '--out',
      out,
      '--shard-size',
      '200',
    ],
    { stdio: 'inherit' },
  );
  return out;
}

/** Build the demo (vite build) into `.artifacts/demo-dist` and serve it with vite preview. */
export async function buildAndPreview(
  dataDir: string,
): Promise<{ url: string; server: PreviewServer }> {
  process.env.MEDFUSION_DEMO_DATA = dataDir;
  const configFile = join(ROOT, 'demo', 'vite.config.ts');
  const outDir = join(ARTIFACTS, 'demo-dist');
  // Vitest sets NODE_ENV=test; build what `pnpm --filter @medfusion/demo build` builds.
  const nodeEnv = process.env.NODE_ENV;
  process.env.NODE_ENV = 'production';
  try {
    await build({
      configFile,
      mode: 'production',
      logLevel: 'warn',
      build: { outDir, emptyOutDir: true },
    });
  } finally {
    process.env.NODE_ENV = nodeEnv;
  }
  const port = await freePort();
  const server = await preview({
    configFile,
    logLevel: 'warn',
    build: { outDir },
    preview: { host: '127.0.0.1', port, strictPort: true, open: false },
  });
  return { url: `http://127.0.0.1:${port}/`, server };
}

/** Launch Chromium the way every browser test here does. */
export function launchChromium(): Promise<Browser> {
  return chromium.launch({
    executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
    args: [
      '--no-sandbox',
      '--disable-background-networking',
      '--disable-component-update',
      '--no-first-run',
    ],
  });
}
