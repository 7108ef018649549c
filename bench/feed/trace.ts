// `pnpm bench feed --trace`: where every Chromium thread spends a tier's warm epoch, from a
// Chrome trace with V8's sampling profiler on (category disabled-by-default-v8.cpu_profiler):
// the trace's ProfileChunk events of each thread (page, Web Workers) summed into self time per
// function. Used to find what bounds a row under 0.8 of its ceiling.

interface TraceEvent {
  name: string;
  ph: string;
  pid: number;
  tid: number;
  id?: string;
  args?: {
    name?: string;
    data?: {
      cpuProfile?: {
        nodes?: {
          id: number;
          callFrame: { functionName?: string; url?: string };
          parent?: number;
        }[];
        samples?: number[];
      };
      timeDeltas?: number[];
    };
  };
}

/** Trace categories for Playwright's `browser.startTracing`. */
export const TRACE_CATEGORIES = [
  'disabled-by-default-v8.cpu_profiler',
  'v8',
  'devtools.timeline',
  '__metadata',
];

/** Per thread (named), the functions with the most self time: `ms name (file)`. */
export function summarizeTrace(json: string, top = 6): string[] {
  const events = (JSON.parse(json) as { traceEvents: TraceEvent[] }).traceEvents;
  const names = new Map<string, string>();
  for (const e of events) {
    if (e.ph === 'M' && e.name === 'thread_name')
      names.set(`${e.pid}:${e.tid}`, e.args?.name ?? '?');
  }
  // profile id -> its thread, its nodes' names, self ms per node
  const profiles = new Map<
    string,
    { thread: string; frame: Map<number, string>; ms: Map<number, number> }
  >();
  for (const e of events) {
    if (e.name === 'Profile' && e.id) {
      profiles.set(e.id, { thread: `${e.pid}:${e.tid}`, frame: new Map(), ms: new Map() });
    }
    if (e.name !== 'ProfileChunk' || !e.id) continue;
    const p = profiles.get(e.id);
    const data = e.args?.data;
    if (!p || !data) continue;
    for (const n of data.cpuProfile?.nodes ?? []) {
      const file = (n.callFrame.url ?? '')
        .replace(/^.*\/(packages|bench|node_modules)\//, '$1/')
        .replace(/\?.*$/, '');
      p.frame.set(n.id, `${n.callFrame.functionName || '(anonymous)'}${file ? ` (${file})` : ''}`);
    }
    const samples = data.cpuProfile?.samples ?? [];
    const deltas = data.timeDeltas ?? [];
    for (let i = 0; i < samples.length; i++) {
      const id = samples[i] as number;
      p.ms.set(id, (p.ms.get(id) ?? 0) + (deltas[i] ?? 0) / 1000);
    }
  }
  const byThread = new Map<string, Map<string, number>>();
  for (const p of profiles.values()) {
    const t = byThread.get(p.thread) ?? new Map<string, number>();
    for (const [id, ms] of p.ms) {
      const name = p.frame.get(id) ?? '?';
      t.set(name, (t.get(name) ?? 0) + ms);
    }
    byThread.set(p.thread, t);
  }
  const out: string[] = [];
  for (const [thread, fns] of byThread) {
    const busy = [...fns].filter(([n]) => !n.startsWith('(idle)'));
    const total = busy.reduce((s, [, ms]) => s + ms, 0);
    if (total < 1) continue;
    out.push(`${names.get(thread) ?? thread}: ${total.toFixed(0)} ms busy`);
    for (const [name, ms] of busy.sort((a, b) => b[1] - a[1]).slice(0, top)) {
      out.push(`    ${ms.toFixed(0).padStart(6)} ms  ${name}`);
    }
  }
  return out;
}
