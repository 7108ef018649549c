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
