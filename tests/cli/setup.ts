// Builds @medfusion/core, @medfusion/web (the DICOM decoder of --decode) and @medfusion/cli (tsc) once before the cli tests:
// they run the medfusion command as a child process, as a user does. The truth
// comes from Debian's Python (tarfile, pydicom, numpy, PIL): installed with
// apt-get when root and missing.
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { aptInstall } from '../../scripts/chromium.mjs';

const repo = resolve(dirname(fileURLToPath(import.meta.url)), '../..');

const PYTHON_CHECK = 'import pydicom, numpy, PIL';

function pythonReady(): boolean {
  return spawnSync('/usr/bin/python3', ['-c', PYTHON_CHECK], { stdio: 'ignore' }).status === 0;
}

export default function setup(): () => void {
  if (!pythonReady()) {
    aptInstall(['python3', 'python3-pydicom', 'python3-numpy', 'python3-pil']);
    if (!pythonReady()) {
      throw new Error(
        'the cli tests need /usr/bin/python3 with pydicom, numpy and PIL: apt-get install python3-pydicom python3-numpy python3-pil (run as root to install them automatically)',
      );
    }
  }
  for (const pkg of ['core', 'web', 'cli']) {
    execFileSync('pnpm', ['run', 'build'], {
      cwd: resolve(repo, 'packages', pkg),
      stdio: 'inherit',
    });
  }
  // The tests' temporary folders (cliHelpers.ts `tempDir`) go in one folder, removed at the end.
  const root = mkdtempSync(join(tmpdir(), 'medfusion-cli-run-'));
  process.env.MEDFUSION_CLI_TMP = root;
  return () => rmSync(root, { recursive: true, force: true });
}
