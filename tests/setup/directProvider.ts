// Vitest browser providers that start the browser itself on the URL Vitest asks for, with a fresh
// profile (removed on close), no automation: Firefox (Debian's firefox-esr, headless) for the
// `-firefox` projects and Chromium (headless) for the Chromium ones of vite.config.ts; WebKitGTK's
// (webkitProvider.ts) is the same provider with a MiniBrowser launcher. The test files report over
// Vitest's own websocket.
//
// Why not Playwright: a driven browser reports every network request of the page to the driver
// (Vitest's module graph is thousands of them), and in Firefox the parent process's Remote Agent
// (WebDriver BiDi) does that in JavaScript on its main thread. Measured, each project alone on
// this 2-core VM, one run each (wall s / CPU s of the whole machine): web-firefox 244 / 324 through Playwright,
// 102 / 127 started directly; web (Chromium) 110 / 151 and 94 / 125. The stores-firefox
// parent's main thread spent 63 s of CPU where the page's own process spent 32 s, and held
// 5–6 GB until the whole run ended (docs/browser-support.md). The suite needs no more of a driver
// than opening a page: no `userEvent`, screenshots or CDP (`server.browser` works here too).
//
// A launcher that is `parallel` gets `supportsParallelism` and a `mocker`, which make Vitest run
// its projects beside the other browser projects (a provider without them runs after them, one
// page at a time, as WebKitGTK's does); the mocker refuses `vi.mock`, which no browser test uses.
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { defineBrowserProvider } from '@vitest/browser';
import type {
  BrowserModuleMocker,
  BrowserProvider,
  BrowserProviderOption,
  TestProject,
} from 'vitest/node';
import { chromiumPath, firefoxPath } from '../../scripts/chromium.mjs';
import { stopGroup } from './processGroup.js';

/** A pref's value in user.js. */
export type FirefoxPref = boolean | number | string;

/** Options of {@link firefoxDirect}. */
export interface FirefoxDirectOptions {
  /**
   * Prefs beyond {@link quietPrefs} (they win over it).
   * @default {}
   */
  prefs?: Record<string, FirefoxPref>;
}

/** Options of {@link chromiumDirect}. */
export interface ChromiumDirectOptions {
  /**
   * Command-line switches (beside `--headless`, `--user-data-dir` and the URL).
   * @default []
   */
  args?: string[];
}

/** How a {@link directBrowserProvider} starts its browser. */
export interface Launcher {
  /** The provider's name in Vitest's messages (and in its profiles' folder names). */
  name: string;
  /** Whether Vitest may run the provider's projects beside the other browser projects. */
  parallel: boolean;
  /**
   * Start the browser on `url` with the fresh folder `profile`, as the leader of a process group
   * (stopped with `stopGroup`), its stderr piped.
   */
  start(profile: string, url: string): ChildProcess | Promise<ChildProcess>;
  /** Stop what the launcher shares between its pages (WebKitGTK's Xvfb). */
  close?(): Promise<void>;
}

/** Start `bin args` as the leader of a process group, stderr piped. */
function spawnGroup(bin: string, args: string[]): ChildProcess {
  return spawn(bin, args, {
    detached: true,
    stdio: ['ignore', 'ignore', 'pipe'],
    env: { ...process.env, MOZ_CRASHREPORTER_DISABLE: '1' },
  });
}

/**
 * Prefs of an unattended profile: no first-run or welcome pages, update, telemetry, safe
 * browsing, captive-portal or other background traffic, no slow-script or hang reports, no
 * session restore after a kill.
 */
export const quietPrefs: Record<string, FirefoxPref> = {
  'app.normandy.enabled': false,
  'app.update.auto': false,
  'app.update.checkInstallTime': false,
  'app.update.disabledForTesting': true,
  'browser.aboutwelcome.enabled': false,
  'browser.discovery.enabled': false,
  'browser.newtabpage.enabled': false,
  'browser.ping-centre.telemetry': false,
  'browser.region.network.url': '',
  'browser.region.update.enabled': false,
  'browser.safebrowsing.blockedURIs.enabled': false,
  'browser.safebrowsing.downloads.enabled': false,
  'browser.safebrowsing.malware.enabled': false,
  'browser.safebrowsing.phishing.enabled': false,
  'browser.safebrowsing.update.enabled': false,
  'browser.search.update': false,
  'browser.sessionstore.resume_from_crash': false,
  'browser.shell.checkDefaultBrowser': false,
  'browser.startup.homepage_override.mstone': 'ignore',
  'browser.startup.page': 0,
  'browser.tabs.warnOnClose': false,
  'browser.uitour.enabled': false,
  'datareporting.healthreport.uploadEnabled': false,
  'datareporting.policy.dataSubmissionEnabled': false,
  'dom.ipc.reportProcessHangs': false,
  'dom.max_chrome_script_run_time': 0,
  'dom.max_script_run_time': 0,
  'extensions.update.enabled': false,
  'hangmonitor.timeout': 0,
  'media.gmp-manager.updateEnabled': false,
  'network.captive-portal-service.enabled': false,
  'network.connectivity-service.enabled': false,
  'network.dns.disablePrefetch': true,
  'network.http.speculative-parallel-limit': 0,
  'network.prefetch-next': false,
  'services.settings.server': 'data:,#remote-settings-dummy/v1',
  'toolkit.startup.max_resumed_crashes': -1,
  'toolkit.telemetry.enabled': false,
  'toolkit.telemetry.server': '',
  'trailhead.firstrun.branches': 'nofirstrun-empty',
};

/** user.js text of `prefs`. */
function userJs(prefs: Record<string, FirefoxPref>): string {
  return Object.entries(prefs)
    .map(([k, v]) => `user_pref(${JSON.stringify(k)}, ${JSON.stringify(v)});\n`)
    .join('');
}

/** One browser: its process (a group leader, so its child processes go with it). */
interface Session {
  proc: ChildProcess;
  profile: string;
}

class DirectProvider implements BrowserProvider {
  readonly supportsParallelism: boolean;
  readonly mocker: BrowserModuleMocker | undefined;
  private readonly sessions = new Map<string, Session>();
  private closing = false;

  constructor(
    private readonly project: TestProject,
    private readonly launcher: Launcher,
  ) {
    this.supportsParallelism = launcher.parallel;
    this.mocker = launcher.parallel
      ? {
          register: async () => {
            throw new Error(`[${launcher.name}] vi.mock is not supported by this provider`);
          },
          delete: async () => {},
          clear: async () => {},
        }
      : undefined;
  }

  get name(): string {
    return this.launcher.name;
  }

  getCommandsContext(): Record<string, unknown> {
    return {};
  }

  async openPage(sessionId: string, url: string): Promise<void> {
    if (this.closing) throw new Error(`[${this.name}] the provider was closed`);
    const old = this.sessions.get(sessionId);
    if (old) await this.end(sessionId, old);
    const profile = mkdtempSync(join(tmpdir(), `medfusion-${this.name}-`));
    const proc = await this.launcher.start(profile, url);
    let stderr = '';
    proc.stderr?.on('data', (d: Buffer) => {
      stderr = (stderr + d.toString()).slice(-4000);
    });
    proc.on('exit', (code, signal) => {
      if (!this.closing && this.sessions.get(sessionId)?.proc === proc) {
        console.error(
          `[${this.name}] the browser of ${this.project.name} exited (${code ?? signal}): ${stderr}`,
        );
      }
    });
    this.sessions.set(sessionId, { proc, profile });
  }

  private async end(sessionId: string, s: Session): Promise<void> {
    this.sessions.delete(sessionId);
    await stopGroup(s.proc);
    rmSync(s.profile, { recursive: true, force: true });
  }

  async close(): Promise<void> {
    this.closing = true;
    await Promise.all([...this.sessions].map(([id, s]) => this.end(id, s)));
    await this.launcher.close?.();
  }
}

/**
 * A Vitest provider for `browser` whose pages are browsers {@link Launcher} starts (a launcher
 * per provider, from `makeLauncher`).
 */
export function directBrowserProvider(
  browser: string,
  options: object,
  makeLauncher: () => Launcher,
): BrowserProviderOption {
  const name = makeLauncher().name;
  return defineBrowserProvider({
    name,
    supportedBrowser: [browser],
    options,
    providerFactory: (project: TestProject) => new DirectProvider(project, makeLauncher()),
  });
}

/**
 * Firefox (FIREFOX_PATH, else Debian's firefox-esr), headless, on a profile of
 * {@link quietPrefs} and `options.prefs`:
 * `browser: { provider: firefoxDirect(), instances: [{ browser: 'firefox' }] }`.
 */
export function firefoxDirect(
  options: FirefoxDirectOptions = {},
): BrowserProviderOption<FirefoxDirectOptions> {
  return directBrowserProvider('firefox', options, () => ({
    name: 'firefox-direct',
    parallel: true,
    start(profile, url) {
      writeFileSync(join(profile, 'user.js'), userJs({ ...quietPrefs, ...options.prefs }));
      return spawnGroup(firefoxPath(), ['--headless', '--no-remote', '--profile', profile, url]);
    },
  }));
}

/**
 * Chromium (CHROMIUM_PATH, else Debian's chromium), headless, with `options.args`:
 * `browser: { provider: chromiumDirect({ args }), instances: [{ browser: 'chromium' }] }`.
 */
export function chromiumDirect(
  options: ChromiumDirectOptions = {},
): BrowserProviderOption<ChromiumDirectOptions> {
  return directBrowserProvider('chromium', options, () => ({
    name: 'chromium-direct',
    parallel: true,
    start: (profile, url) =>
      spawnGroup(chromiumPath(), [
        '--headless',
        `--user-data-dir=${profile}`,
        ...(options.args ?? []),
        url,
      ]),
  }));
}
