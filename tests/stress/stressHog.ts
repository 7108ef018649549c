// CPU hogs for the stress harness: stress-ng (Debian's; installed with apt-get as root when
// missing) keeping `cpus` cores busy. Each hog also ends on its own after `maxSeconds`, so none
// outlives a harness that dies before it can stop it.
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { aptInstall } from '../../scripts/chromium.mjs';
import { stopGroup } from '../setup/processGroup.js';

/** Running hogs. */
export interface Hog {
  /** What runs, e.g. `stress-ng --cpu 2`. */
  readonly command: string;
  /** Stop every hog process (the whole group) and wait for it. Idempotent. */
  stop(): Promise<void>;
}

function hasStressNg(): boolean {
  try {
    execFileSync('stress-ng', ['--version'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

/** stress-ng is there, or could be installed (root on Debian): else an Error saying how to get it. */
export function ensureStressNg(): void {
  if (hasStressNg() || (aptInstall(['stress-ng']) && hasStressNg())) return;
  throw new Error('stress-ng is missing: install it (Debian: `sudo apt-get install stress-ng`)');
}

/** Start `stress-ng --cpu <cpus>`, ending by itself after `maxSeconds`. */
export async function startHog(cpus: number, maxSeconds: number): Promise<Hog> {
  ensureStressNg();
  const args = ['--cpu', String(cpus), '--timeout', `${Math.ceil(maxSeconds)}s`, '--quiet'];
  const proc: ChildProcess = spawn('stress-ng', args, { detached: true, stdio: 'ignore' });
  await new Promise<void>((resolve, reject) => {
    proc.once('spawn', resolve);
    proc.once('error', reject);
  });
  let stopped: Promise<void> | undefined;
  return {
    command: `stress-ng ${args.join(' ')}`,
    stop: () => {
      stopped ??= stopGroup(proc);
      return stopped;
    },
  };
}
