/** Repository root. */
export const ROOT: string;
/** The published packages, by folder under packages/. */
export const PACKAGES: string[];
/** Packages published as a command (a `bin`, no import entry): packed, but no library checks. */
export const COMMANDS: string[];
/** `pnpm pack` every published package (or those of `dirs`) into `dest`; package name → tarball path. */
export function packPackages(dest: string, dirs?: string[]): Record<string, string>;
/** Every subpath a consumer may import (workspace `exports` and the docs), by package name. */
export function publicSubpaths(): Record<string, string[]>;
/** What is wrong with a published package.json for `subpaths` (empty when nothing). */
export function manifestProblems(
  manifest: {
    name: string;
    exports?: Record<string, unknown>;
    typesVersions?: Record<string, Record<string, string[]>>;
  },
  subpaths: string[],
): string[];
