// Stopping what the test setup starts as a process group (browsers, Xvfb, CPU hogs): the leader
// and every process it started go together.
import type { ChildProcess } from 'node:child_process';

/** Stop a process group we started (MiniBrowser and its helpers, or Xvfb): SIGTERM, then SIGKILL after 3 s. */
export function stopGroup(proc: ChildProcess): Promise<void> {
  if (proc.exitCode !== null || proc.signalCode !== null || proc.pid === undefined) {
    return Promise.resolve();
  }
  const pid = proc.pid;
  return new Promise((resolve) => {
    const kill = setTimeout(() => {
      try {
        process.kill(-pid, 'SIGKILL');
      } catch {}
    }, 3_000);
    proc.once('exit', () => {
      clearTimeout(kill);
      resolve();
    });
    try {
      process.kill(-pid, 'SIGTERM');
    } catch {
      clearTimeout(kill);
      resolve();
    }
  });
}
