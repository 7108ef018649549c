// Where the page's main thread spends a row's time, from a V8 CPU profile (Chrome DevTools
// Protocol, Profiler domain) taken over the row's two epochs: the answer to "does the pipeline
// slow the training step?" on the thread where both run. Samples are wall time: a thread that
// waits for a core shows the function it was running, so shares are of the row's wall time.

/** The parts of a DevTools `Profiler.Profile` read here. */
export interface CpuProfile {
  nodes: {
    id: number;
    callFrame: { functionName: string; url: string; lineNumber: number };
    children?: number[];
  }[];
  samples?: number[];
  timeDeltas?: number[];
}

/** One row's page-thread time by who ran, as shares of the profiled wall time. */
export interface ProfileSummary {
  /** Profiled wall time, ms. */
  ms: number;
  /** Self time in MedFusion's packages (packages/core, packages/web). */
  library: number;
  /** Time with a MedFusion frame anywhere on the stack (what its calls cost, TF.js calls included). */
  libraryOnStack: number;
  /** Self time in the demo's and the bench's own code. */
  app: number;
  /** Self time in everything else that is JavaScript: TF.js, comlink, papaparse, ... */
  dependencies: number;
  /** V8's garbage collector. */
  gc: number;
  /** The thread idle in its event loop. */
  idle: number;
  /** Native work outside JavaScript (V8's "(program)": message delivery, timers, ...). */
  program: number;
  /** The three functions with the most self time, `name file:line share`. */
  top: string[];
}

const LIBRARY = /\/packages\/(core|web)\//;
const APP = /\/(demo\/src|bench\/pipeline)\//;

/** Sums a CPU profile's sample time by the kind of code that ran. */
export function summarizeProfile(profile: CpuProfile): ProfileSummary {
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const parent = new Map<number, number>();
  for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  const selfUs = new Map<number, number>();
  const deltas = profile.timeDeltas ?? [];
  profile.samples?.forEach((id, i) => {
    selfUs.set(id, (selfUs.get(id) ?? 0) + (deltas[i] ?? 0));
  });
  const onStack = (id: number): boolean => {
    for (let cur: number | undefined = id; cur !== undefined; cur = parent.get(cur)) {
      if (LIBRARY.test(byId.get(cur)?.callFrame.url ?? '')) return true;
    }
    return false;
  };
  const sums = {
    library: 0,
    libraryOnStack: 0,
    app: 0,
    dependencies: 0,
    gc: 0,
    idle: 0,
    program: 0,
  };
  const perFunction = new Map<string, number>();
  let total = 0;
  for (const [id, us] of selfUs) {
    const frame = byId.get(id)?.callFrame;
    if (!frame) continue;
    total += us;
    if (frame.functionName === '(idle)') sums.idle += us;
    else if (frame.functionName === '(garbage collector)') sums.gc += us;
    else if (frame.functionName === '(program)' || frame.functionName === '(root)')
      sums.program += us;
    else if (LIBRARY.test(frame.url)) sums.library += us;
    else if (APP.test(frame.url)) sums.app += us;
    else sums.dependencies += us;
    if (onStack(id)) sums.libraryOnStack += us;
    const file = frame.url.split('/').pop()?.split('?')[0] ?? '';
    const key = `${frame.functionName || '(anonymous)'} ${file}:${frame.lineNumber + 1}`;
    perFunction.set(key, (perFunction.get(key) ?? 0) + us);
  }
  const share = (us: number) => (total > 0 ? us / total : 0);
  const top = [...perFunction]
    .sort((a, b) => b[1] - a[1])
    .slice(0, 3)
    .map(([k, us]) => `${k} ${(share(us) * 100).toFixed(1)} %`);
  return {
    ms: total / 1000,
    library: share(sums.library),
    libraryOnStack: share(sums.libraryOnStack),
    app: share(sums.app),
    dependencies: share(sums.dependencies),
    gc: share(sums.gc),
    idle: share(sums.idle),
    program: share(sums.program),
    top,
  };
}

/** One line per row: `strategy: library x % (on stack y %), ...`. */
export function describeProfile(strategy: string, s: ProfileSummary): string {
  const pct = (x: number) => `${(x * 100).toFixed(1)} %`;
  return (
    `  ${strategy.padEnd(9)} ${(s.ms / 1000).toFixed(1)} s: MedFusion ${pct(s.library)} ` +
    `(on the stack ${pct(s.libraryOnStack)}), demo ${pct(s.app)}, TF.js and other ` +
    `dependencies ${pct(s.dependencies)}, GC ${pct(s.gc)}, idle ${pct(s.idle)}, native ` +
    `${pct(s.program)}; most self time: ${s.top.join('; ')}`
  );
}
