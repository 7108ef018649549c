// Global setup of the `consumer` project: build both packages and `pnpm pack`
// them once (scripts/pack.mjs); every app of tests/consumer/apps is then
// installed from these tarballs with npm, outside the workspace.
import { execFileSync } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TestProject } from 'vitest/node';
import { COMMANDS, packPackages, ROOT } from '../../scripts/pack.mjs';

declare module 'vitest' {
  export interface ProvidedContext {
    /** Folder outside the workspace where the consumer apps are installed. */
    consumerDir: string;
    /** Package name → path of its packed tarball. */
    consumerTarballs: Record<string, string>;
  }
}

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  execFileSync('pnpm', ['run', 'build'], { cwd: ROOT, stdio: ['ignore', 'ignore', 'inherit'] });
  const dir = await mkdtemp(join(tmpdir(), 'medfusion-consumer-'));
  const tarballs: Record<string, string> = {
    ...packPackages(join(dir, 'tarballs')),
    ...packPackages(join(dir, 'tarballs'), COMMANDS),
  };
  project.provide('consumerDir', dir);
  project.provide('consumerTarballs', tarballs);
  return async () => {
    if (!process.env.MEDFUSION_KEEP_CONSUMER) await rm(dir, { recursive: true, force: true });
  };
}
