// CPU time of the browser's threads, for breakdowns: Linux /proc, read from the Node side.
import { readdirSync, readFileSync } from 'node:fs';

/** Where CPU time went: the page's main thread, its Web Workers, the GPU process, the rest. */
export type CpuClass = 'page' | 'workers' | 'gpu' | 'other';

/** CPU milliseconds per {@link CpuClass}. */
export type CpuTimes = Record<CpuClass, number>;

const TICK_MS = 10; // USER_HZ is 100 on Linux

function stat(path: string): { comm: string; ppid: number; ticks: number } {
  const s = readFileSync(path, 'utf8');
  const close = s.lastIndexOf(')');
  const f = s.slice(close + 2).split(' ');
  return {
    comm: s.slice(s.indexOf('(') + 1, close),
    ppid: Number(f[1]),
    ticks: Number(f[11]) + Number(f[12]), // utime + stime
  };
}

/**
 * CPU time used so far by every thread of the processes this Node process
 * started (the browser), by class; zeros where /proc is missing (not Linux).
 */
export function cpuTimes(): CpuTimes {
  const out: CpuTimes = { page: 0, workers: 0, gpu: 0, other: 0 };
  let pids: string[];
  try {
    pids = readdirSync('/proc').filter((d) => /^\d+$/.test(d));
  } catch {
    return out;
  }
  const parent = new Map<number, number>();
  for (const d of pids) {
    try {
      parent.set(Number(d), stat(`/proc/${d}/stat`).ppid);
    } catch {
      // exited meanwhile
    }
  }
  const ours = (pid: number) => {
    for (let p = parent.get(pid), hops = 0; p !== undefined && hops < 20; hops++) {
      if (p === process.pid) return true;
      p = parent.get(p);
    }
    return false;
  };
  for (const pid of parent.keys()) {
    if (!ours(pid)) continue;
    try {
      const type = /--type=([a-z-]+)/.exec(readFileSync(`/proc/${pid}/cmdline`, 'utf8'))?.[1];
      for (const tid of readdirSync(`/proc/${pid}/task`)) {
        const t = stat(`/proc/${pid}/task/${tid}/stat`);
        const ms = t.ticks * TICK_MS;
        if (type === 'gpu-process') out.gpu += ms;
        else if (type === 'renderer' && t.comm.startsWith('DedicatedWorker')) out.workers += ms;
        else if (type === 'renderer' && Number(tid) === pid) out.page += ms;
        else out.other += ms;
      }
    } catch {
      // exited meanwhile
    }
  }
  return out;
}

/** `b − a`, class by class. */
export function cpuSince(a: CpuTimes, b: CpuTimes): CpuTimes {
  return {
    page: b.page - a.page,
    workers: b.workers - a.workers,
    gpu: b.gpu - a.gpu,
    other: b.other - a.other,
  };
}
