// Types of scripts/chromium.mjs for the TypeScript test setup that imports it.
export function chromiumPath(): string;
export function firefoxPath(): string;
export const chromiumArgs: string[];
export function aptInstall(packages: string[]): boolean;
export function ensureChromium(): string;
