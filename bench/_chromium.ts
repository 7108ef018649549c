import { readdirSync, readFileSync } from 'node:fs';

/**
 * Launch options for Debian's Chromium in the browser benchmarks: the binary
 * from CHROMIUM_PATH (else /usr/bin/chromium; browsers are never downloaded)
 * and the flags this machine needs (no sandbox as root, no background network).
 */
export function chromiumLaunchOptions(extraArgs: readonly string[] = []): {
  executablePath: string;
  args: string[];
} {
  return {
    executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
    args: [
      '--no-sandbox',
      '--disable-background-networking',
      '--disable-component-update',
      '--no-first-run',
      '--disable-dev-shm-usage',
      ...extraArgs,
    ],
  };
}

/**
 * The process id of the Chromium browser process running on the profile `userDataDir` (a
 * persistent context, which Playwright gives no process for): the process whose command line
 * names that profile and is not a child (`--type=`). Linux /proc; throws when none is found.
 */
export function browserPidOf(userDataDir: string): number {
  const flag = `--user-data-dir=${userDataDir}`;
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    let args: string[];
    try {
      args = readFileSync(`/proc/${entry}/cmdline`, 'utf8').split('\0');
    } catch {
      continue;
    }
    if (args.includes(flag) && !args.some((a) => a.startsWith('--type='))) return Number(entry);
  }
  throw new Error(`no Chromium browser process on the profile ${userDataDir}`);
}
