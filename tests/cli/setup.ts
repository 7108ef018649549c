// Builds @medfusion/core and @medfusion/cli (tsc) once before the cli tests:
// they run the medfusion command as a child process, as a user does.
import { execFileSync } from 'node:child_process';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const repo = resolve(dirname(fileURLToPath(import.meta.url)), '../..');

export default function setup(): void {
  for (const pkg of ['core', 'cli']) {
    execFileSync('pnpm', ['run', 'build'], {
      cwd: resolve(repo, 'packages', pkg),
      stdio: 'inherit',
    });
  }
}
