// The three engines, each on a fresh profile; the page drives itself and reports over HTTP
// (tests/stress/stressReports.ts). Chromium and Firefox ESR (Debian's, headless) are started
// through Playwright as the browser projects and the demo e2e start them (`driver: 'playwright'`:
// the Firefox stall showed there, over WebDriver BiDi) or as a user starts them (`'direct'`, no
// automation); WebKitGTK's MiniBrowser always directly, on an Xvfb display.
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { type BrowserContext, chromium, firefox } from 'playwright';
import { chromiumArgs, chromiumPath, firefoxPath } from '../../scripts/chromium.mjs';
import { stopGroup } from '../setup/processGroup.js';
import { spawnMiniBrowser, startXvfb, webkitFeatures } from '../setup/webkitProvider.js';

/** The engines the harness drives. */
export const ENGINES = ['chromium', 'firefox', 'webkit'] as const;
/** One of {@link ENGINES}. */
export type Engine = (typeof ENGINES)[number];

/** Firefox preferences of a fresh profile: no first-run pages, no prompts, no phoning home. */
const FIREFOX_PREFS: Record<string, string | boolean | number> = {
  'browser.shell.checkDefaultBrowser': false,
  'browser.startup.homepage_override.mstone': 'ignore',
  'browser.aboutwelcome.enabled': false,
  'datareporting.policy.dataSubmissionEnabled': false,
  'toolkit.telemetry.reportingpolicy.firstRun': false,
  'app.update.disabledForTesting': true,
  // navigator.storage.persist(): answered (granted), as the browser projects do
  'dom.storageManager.prompt.testing': true,
  'dom.storageManager.prompt.testing.allow': true,
};

/** How Chromium and Firefox are started: through Playwright, or as a user does. */
export type Driver = 'playwright' | 'direct';

/** A started browser. */
export interface LaunchedBrowser {
  /** Called once if the browser goes away by itself. */
  onExit(listener: (why: string) => void): void;
  /** Stop it and everything it started. */
  stop(): Promise<void>;
}

function fromProcess(proc: ChildProcess): LaunchedBrowser {
  return {
    onExit: (listener) => proc.once('exit', (code, sig) => listener(`exited (${code ?? sig})`)),
    stop: () => stopGroup(proc),
  };
}

function fromContext(context: BrowserContext): LaunchedBrowser {
  let stopping = false;
  return {
    onExit: (listener) =>
      context.once('close', () => {
        if (!stopping) listener('closed');
      }),
    stop: async () => {
      stopping = true;
      await context.close().catch(() => {});
    },
  };
}

/** Launches browsers; holds the Xvfb display WebKit needs until {@link Browsers.close}. */
export class Browsers {
  private xvfb: { proc: ChildProcess; display: string } | undefined;

  constructor(private readonly driver: Driver) {}

  /** Start `engine` on `url` with the fresh profile `profile`. */
  async launch(engine: Engine, url: string, profile: string): Promise<LaunchedBrowser> {
    mkdirSync(profile, { recursive: true });
    if (engine !== 'webkit' && this.driver === 'playwright') {
      const context =
        engine === 'firefox'
          ? await firefox.launchPersistentContext(profile, {
              channel: 'moz-firefox',
              executablePath: firefoxPath(),
              firefoxUserPrefs: FIREFOX_PREFS,
            })
          : await chromium.launchPersistentContext(profile, {
              executablePath: chromiumPath(),
              args: chromiumArgs,
            });
      const page = context.pages()[0] ?? (await context.newPage());
      await page.goto(url);
      return fromContext(context);
    }
    if (engine === 'webkit') {
      this.xvfb ??= await startXvfb();
      // navigator.language must be a real tag for the demo's charts (see demo-webkit.test.ts)
      const proc = spawnMiniBrowser({
        display: this.xvfb.display,
        profile,
        url,
        features: webkitFeatures,
        env: { LANG: 'en_US.UTF-8', LC_ALL: '' },
      });
      return fromProcess(proc);
    }
    if (engine === 'firefox') {
      const prefs = Object.entries(FIREFOX_PREFS).map(
        ([k, v]) => `user_pref(${JSON.stringify(k)}, ${JSON.stringify(v)});`,
      );
      writeFileSync(join(profile, 'user.js'), `${prefs.join('\n')}\n`);
      const bin = firefoxPath();
      const proc = spawn(bin, ['--headless', '--no-remote', '--profile', profile, url], {
        detached: true,
        stdio: 'ignore',
        env: { ...process.env, MOZ_CRASHREPORTER_DISABLE: '1' },
      });
      return fromProcess(proc);
    }
    const proc = spawn(
      chromiumPath(),
      ['--headless=new', ...chromiumArgs, `--user-data-dir=${profile}`, url],
      { detached: true, stdio: 'ignore' },
    );
    return fromProcess(proc);
  }

  /** Stop the Xvfb display, if one was started. */
  async close(): Promise<void> {
    if (this.xvfb) await stopGroup(this.xvfb.proc);
    this.xvfb = undefined;
  }
}
