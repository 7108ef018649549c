// CPU time of Chromium's threads, read from Linux's /proc (utime + stime of every thread of
// every process under the browser), split into the page's main thread, the dedicated Web
// Workers and everything else (a renderer's main thread is the thread whose id is the process's). Per-thread deltas, so threads that start mid-way count from 0.
import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import type { CpuDelta } from './types.js';

const TICK_MS = 1000 / Number(execFileSync('getconf', ['CLK_TCK']).toString().trim() || 100);

function read(path: string): string | undefined {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return undefined; // the process or thread ended meanwhile
  }
}

/** Fields after the `(comm)` of a /proc stat line: [state, ppid, …]. */
function statFields(text: string): string[] {
  return text.slice(text.lastIndexOf(')') + 2).split(' ');
}

/** `root` and every process below it. */
function processTree(root: number): number[] {
  const children = new Map<number, number[]>();
  for (const name of readdirSync('/proc')) {
    const pid = Number(name);
    if (!Number.isInteger(pid)) continue;
    const stat = read(`/proc/${pid}/stat`);
    if (stat === undefined) continue;
    const ppid = Number(statFields(stat)[1]);
    const list = children.get(ppid) ?? [];
    list.push(pid);
    children.set(ppid, list);
  }
  const out: number[] = [];
  const stack = [root];
  while (stack.length > 0) {
    const pid = stack.pop() as number;
    out.push(pid);
    stack.push(...(children.get(pid) ?? []));
  }
  return out;
}

type ThreadClass = keyof CpuDelta;

/** Per-thread CPU meter of the browser whose process id is `root`. */
export class CpuMeter {
  private last = new Map<string, number>();

  constructor(private readonly root: number) {
    this.mark();
  }

  /** CPU time used since the previous mark, by thread class. */
  mark(): CpuDelta {
    const delta: CpuDelta = { pageMs: 0, workersMs: 0, otherMs: 0 };
    const now = new Map<string, number>();
    for (const pid of processTree(this.root)) {
      const renderer = (read(`/proc/${pid}/cmdline`) ?? '').includes('--type=renderer');
      let tids: string[];
      try {
        tids = readdirSync(`/proc/${pid}/task`);
      } catch {
        continue;
      }
      for (const tid of tids) {
        const stat = read(`/proc/${pid}/task/${tid}/stat`);
        if (stat === undefined) continue;
        const f = statFields(stat);
        const ms = (Number(f[11]) + Number(f[12])) * TICK_MS;
        const key = `${pid}/${tid}`;
        now.set(key, ms);
        const comm = (read(`/proc/${pid}/task/${tid}/comm`) ?? '').trim();
        let cls: ThreadClass = 'otherMs';
        if (renderer && tid === String(pid))
          cls = 'pageMs'; // a renderer's main thread
        else if (renderer && comm.startsWith('DedicatedWorker')) cls = 'workersMs';
        delta[cls] += ms - (this.last.get(key) ?? 0);
      }
    }
    this.last = now;
    return delta;
  }
}
