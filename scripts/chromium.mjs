// Finds a Chromium for the browser tests: CHROMIUM_PATH, else /usr/bin/chromium,
// else (Debian, root) installs Debian's `chromium` with apt-get, else explains.
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';

export function chromiumPath() {
  return process.env.CHROMIUM_PATH || '/usr/bin/chromium';
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
