// Finds the browsers of the browser tests: a Chromium (CHROMIUM_PATH, else
// /usr/bin/chromium) and a Firefox (FIREFOX_PATH, else /usr/bin/firefox-esr),
// else (Debian, root) installs Debian's `chromium` / `firefox-esr` with apt-get,
// else explains. Never a download from a browser vendor's CDN.
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';

export function chromiumPath() {
  return process.env.CHROMIUM_PATH || '/usr/bin/chromium';
}

/** The Firefox the tests start: FIREFOX_PATH, else Debian's firefox-esr. */
export function firefoxPath() {
  return process.env.FIREFOX_PATH || '/usr/bin/firefox-esr';
}

/** Flags every launch uses: this machine has no network but the registries. */
export const chromiumArgs = [
  '--no-sandbox',
  '--disable-background-networking',
  '--disable-component-update',
  '--no-first-run',
  '--disable-sync',
  '--disable-quic',
  '--disable-dev-shm-usage',
];

/** apt-get install Debian packages when running as root on Debian; returns whether it worked. */
export function aptInstall(packages) {
  const isRoot = typeof process.getuid === 'function' && process.getuid() === 0;
  if (!isRoot || !existsSync('/usr/bin/apt-get')) return false;
  const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
  console.log(`[setup] installing ${packages.join(' ')} with apt-get…`);
  try {
    execFileSync('apt-get', ['update', '-q'], { stdio: 'inherit', env });
    execFileSync('apt-get', ['install', '-y', '-q', '--no-install-recommends', ...packages], {
      stdio: 'inherit',
      env,
    });
    return true;
  } catch (err) {
    console.error(`[setup] apt-get install ${packages.join(' ')} failed: ${err.message}`);
    return false;
  }
}

export function ensureChromium() {
  if (process.env.CHROMIUM_PATH) {
    if (existsSync(process.env.CHROMIUM_PATH)) return process.env.CHROMIUM_PATH;
    throw new Error(`CHROMIUM_PATH=${process.env.CHROMIUM_PATH} does not exist`);
  }
  if (existsSync('/usr/bin/chromium')) return '/usr/bin/chromium';
  if (aptInstall(['chromium']) && existsSync('/usr/bin/chromium')) return '/usr/bin/chromium';
  throw new Error(
    'No Chromium found. Install one (Debian/Ubuntu: `sudo apt-get install chromium`) ' +
      'or point CHROMIUM_PATH at a Chromium or Chrome binary.',
  );
}

/**
 * Firefox for the *-firefox projects (started with no driver, tests/setup/directProvider.ts) and
 * the e2e and stress runs (Playwright over WebDriver BiDi, no geckodriver): Debian's firefox-esr.
 */
export function ensureFirefox() {
  if (process.env.FIREFOX_PATH) {
    if (existsSync(process.env.FIREFOX_PATH)) return process.env.FIREFOX_PATH;
    throw new Error(`FIREFOX_PATH=${process.env.FIREFOX_PATH} does not exist`);
  }
  const esr = '/usr/bin/firefox-esr';
  if (existsSync(esr)) return esr;
  if (aptInstall(['firefox-esr']) && existsSync(esr)) return esr;
  throw new Error(
    'No Firefox found. Install one (Debian: `sudo apt-get install firefox-esr`) ' +
      'or point FIREFOX_PATH at a Firefox binary (WebDriver BiDi, Firefox 129 or later).',
  );
}
