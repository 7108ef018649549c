// A Vitest browser provider for WebKitGTK (Debian's MiniBrowser), used by the `-webkit` projects
// of vite.config.ts. Why not WebDriver (WebKitWebDriver, or Vitest's webdriverio provider): a
// WebDriver session of WebKitGTK runs on throwaway website data in which
// `navigator.storage.getDirectory()` fails, so no OPFS test could run. This provider instead
// starts MiniBrowser itself, directly on the URL Vitest asks for, with a temporary profile
// (HOME and XDG_* dirs in a fresh temp dir, removed on close) and the runtime features that keep
// OPFS and the Storage API off by default (`--features=+StorageAPI,…`, see `webkitFeatures`).
// MiniBrowser has no headless mode: it runs on an Xvfb display this provider starts
// (`-displayfd` picks a free one) and stops on close.
//
// What it offers is what Vitest's "preview" provider offers: the test files run in the page and
// report over Vitest's own websocket. No `userEvent`, screenshots, CDP or provider commands
// (the suite uses none), and one page at a time (`supportsParallelism: false`). Vitest runs such
// a provider's projects after the other browser projects: declaring a mocker and parallelism to
// start them beside the others was tried and made nothing faster on 2 cores (14 min 25 s against
// 14 min 20 s) while the load rose to 15 and seven timing tests failed.
// The binaries come from scripts/webkit.mjs (`ensureWebKit`, which `npm test` runs).
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { BrowserProviderOption } from 'vitest/node';
import { miniBrowserPath, xvfbPath } from '../../scripts/webkit.mjs';
import { directBrowserProvider } from './directProvider.js';
import { stopGroup } from './processGroup.js';

/** Runtime features WebKitGTK 2.50 keeps off that the library's storage needs. */
export const webkitFeatures = [
  'StorageAPI',
  'StorageAPIEstimate',
  'FileSystem',
  'AccessHandle',
  'FileSystemWritableStream',
];

/** Options of {@link webkitgtk}. */
export interface WebKitGtkOptions {
  /**
   * More runtime features to switch on (`MiniBrowser --features=help` lists them).
   * @default []
   */
  features?: string[];
}

/** Start Xvfb on a free display; resolves with `:N` once it is ready (stop it with {@link stopGroup}). */
export function startXvfb(): Promise<{ proc: ChildProcess; display: string }> {
  return new Promise((resolve, reject) => {
    // -displayfd 3: Xvfb writes the display number it chose there once it accepts clients.
    const proc = spawn(
      xvfbPath(),
      ['-displayfd', '3', '-screen', '0', '1280x1024x24', '-nolisten', 'tcp'],
      { detached: true, stdio: ['ignore', 'ignore', 'pipe', 'pipe'] },
    );
    let out = '';
    let err = '';
    const timer = setTimeout(() => {
      proc.kill();
      reject(new Error(`Xvfb gave no display within 20 s: ${err}`));
    }, 20_000);
    proc.stderr?.on('data', (d: Buffer) => {
      err += d.toString();
    });
    proc.stdio[3]?.on('data', (d: Buffer) => {
      out += d.toString();
      if (out.includes('\n')) {
        clearTimeout(timer);
        resolve({ proc, display: `:${out.trim()}` });
      }
    });
    proc.on('error', (e) => {
      clearTimeout(timer);
      reject(e);
    });
    proc.on('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`Xvfb exited with ${code}: ${err}`));
    });
  });
}

/** What {@link spawnMiniBrowser} starts. */
export interface MiniBrowserLaunch {
  /** The X display (`:N`, from {@link startXvfb}). */
  display: string;
  /** The profile dir: HOME and the XDG_* dirs (website data, OPFS, service workers) live in it. */
  profile: string;
  /** The page to open. */
  url: string;
  /** Runtime features to switch on ({@link webkitFeatures} and any more). */
  features: string[];
  /**
   * Write the pages' console messages (workers' too) to the process's stdout, piped for the
   * caller to read (MiniBrowser's `--enable-write-console-messages-to-stdout`); else ignored.
   * @default false
   */
  consoleToStdout?: boolean;
  /**
   * Environment variables beyond (or overriding) this process's.
   * @default {}
   */
  env?: NodeJS.ProcessEnv;
}

/**
 * Start MiniBrowser on `url` with the profile in `profile` (a process group leader: stop it with
 * {@link stopGroup}). Its stderr is piped, for the caller to read or ignore.
 */
export function spawnMiniBrowser({
  display,
  profile,
  url,
  features,
  consoleToStdout = false,
  env = {},
}: MiniBrowserLaunch): ChildProcess {
  const args = [`--features=${features.map((f) => `+${f}`).join(',')}`];
  // WebKit writes each OPFS writable stream to a temporary file and leaves many behind
  // (~2,700 `FileSystemWritableStream-*` files, some 400 kB, in /tmp per `npm test`): they go
  // in the profile, which is removed with it.
  const tmp = join(profile, 'tmp');
  mkdirSync(tmp, { recursive: true });
  if (consoleToStdout) args.push('--enable-write-console-messages-to-stdout=true');
  return spawn(miniBrowserPath(), [...args, url], {
    detached: true,
    stdio: ['ignore', consoleToStdout ? 'pipe' : 'ignore', 'pipe'],
    env: {
      ...process.env,
      ...env,
      DISPLAY: display,
      HOME: profile,
      XDG_DATA_HOME: join(profile, 'data'),
      XDG_CACHE_HOME: join(profile, 'cache'),
      XDG_CONFIG_HOME: join(profile, 'config'),
      TMPDIR: tmp,
      // No accessibility bus or D-Bus session on a test machine.
      NO_AT_BRIDGE: '1',
      GTK_A11Y: 'none',
    },
  });
}

/**
 * The WebKitGTK provider: `browser: { provider: webkitgtk(), instances: [{ browser: 'webkit' }] }`.
 * Each provider (one per project) starts its own Xvfb with its first page and stops it on close.
 */
export function webkitgtk(options: WebKitGtkOptions = {}): BrowserProviderOption<WebKitGtkOptions> {
  return directBrowserProvider('webkit', options, () => {
    let xvfb: Promise<{ proc: ChildProcess; display: string }> | undefined;
    return {
      name: 'webkitgtk',
      parallel: false,
      async start(profile, url) {
        xvfb ??= startXvfb();
        const { display } = await xvfb;
        return spawnMiniBrowser({
          display,
          profile,
          url,
          features: [...webkitFeatures, ...(options.features ?? [])],
        });
      },
      async close() {
        const x = await xvfb?.catch(() => undefined);
        xvfb = undefined;
        if (x) await stopGroup(x.proc);
      },
    };
  });
}
