// Types of scripts/webkit.mjs for the TypeScript test setup that imports it.
export function miniBrowserPath(): string;
export function xvfbPath(): string;
export const webKitWebDriverPath: string;
export const webKitPackages: string[];
export function ensureWebKit(): { miniBrowser: string; xvfb: string };
