// Finds WebKitGTK for the WebKit browser tests (tests/setup/webkitProvider.ts): Debian's
// MiniBrowser (package libwebkit2gtk-4.1-0, pulled in by webkit2gtk-driver, which also brings
// WebKitWebDriver) and Xvfb (MiniBrowser has no headless mode). As root on Debian, a missing
// one is installed with apt-get, like Chromium (scripts/chromium.mjs); never downloaded from a
// browser CDN.
import { existsSync } from 'node:fs';
import { aptInstall } from './chromium.mjs';

/** Debian's MiniBrowser, or WEBKIT_MINIBROWSER_PATH. */
export function miniBrowserPath() {
  return (
    process.env.WEBKIT_MINIBROWSER_PATH || '/usr/lib/x86_64-linux-gnu/webkit2gtk-4.1/MiniBrowser'
  );
}

/** Debian's Xvfb, or XVFB_PATH. */
export function xvfbPath() {
  return process.env.XVFB_PATH || '/usr/bin/Xvfb';
}

/** WebKitWebDriver, from webkit2gtk-driver. */
export const webKitWebDriverPath = '/usr/bin/WebKitWebDriver';

/** Debian packages that provide the three files above (xauth for xvfb-run). */
export const webKitPackages = ['webkit2gtk-driver', 'xvfb', 'xauth'];

function missing() {
  return [miniBrowserPath(), xvfbPath(), webKitWebDriverPath].filter((p) => !existsSync(p));
}

/** Paths of MiniBrowser and Xvfb, installing Debian's packages when missing (root); else throws. */
export function ensureWebKit() {
  if (missing().length > 0) aptInstall(webKitPackages);
  const still = missing();
  if (still.length > 0) {
    throw new Error(
      `WebKitGTK not found (${still.join(', ')}). Install it (Debian: \`sudo apt-get install ` +
        `${webKitPackages.join(' ')}\`) or set WEBKIT_MINIBROWSER_PATH / XVFB_PATH.`,
    );
  }
  return { miniBrowser: miniBrowserPath(), xvfb: xvfbPath() };
}
