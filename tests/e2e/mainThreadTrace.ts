// Traces the page's renderer main thread through the Chrome DevTools Protocol
// and reports its longest task twice: wall time (what `longtask` entries
// measure) and the thread's own CPU time in it. On a loaded machine the two
// differ: a frame of 10 ms of work can take 100+ ms of wall time while the
// thread waits for a core; the CPU time is what the page itself blocks for.
import type { Page } from 'playwright';

interface TraceEvent {
  name: string;
  ph: string;
  pid: number;
  tid: number;
  dur?: number;
  tdur?: number;
  args?: { name?: string };
}

/** The longest main-thread task of a traced interval, in ms. */
export interface MainThreadFigures {
  /** Wall time of the longest task. */
  longestWallMs: number;
  /** The most CPU time the main thread spent in one task. */
  longestCpuMs: number;
}

/** Start tracing `page`'s main thread; `stop()` ends it and returns the figures. */
export async function traceMainThread(
  page: Page,
): Promise<{ stop: () => Promise<MainThreadFigures> }> {
  const cdp = await page.context().newCDPSession(page);
  const events: TraceEvent[] = [];
  cdp.on('Tracing.dataCollected', (d) => events.push(...(d.value as unknown as TraceEvent[])));
  await cdp.send('Tracing.start', {
    categories: 'devtools.timeline,disabled-by-default-devtools.timeline',
    transferMode: 'ReportEvents',
  });
  return {
    async stop() {
      const complete = new Promise((resolve) => cdp.once('Tracing.tracingComplete', resolve));
      await cdp.send('Tracing.end');
      await complete;
      await cdp.detach();
      const main = new Set(
        events
          .filter((e) => e.name === 'thread_name' && e.args?.name === 'CrRendererMain')
          .map((e) => `${e.pid}:${e.tid}`),
      );
      const tasks = events.filter(
        (e) => e.ph === 'X' && e.name === 'RunTask' && main.has(`${e.pid}:${e.tid}`),
      );
      return {
        longestWallMs: Math.max(0, ...tasks.map((e) => (e.dur ?? 0) / 1000)),
        longestCpuMs: Math.max(0, ...tasks.map((e) => (e.tdur ?? 0) / 1000)),
      };
    },
  };
}
